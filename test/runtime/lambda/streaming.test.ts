import type { LambdaFunctionURLEvent } from 'aws-lambda';
import { parseConfig } from '../../../functions/core/config/parse';
import { Gateway } from '../../../functions/core/gateway';
import { streamingHandler } from '../../../functions/runtime/lambda/streaming';
import { nodeBackend } from '../../../functions/runtime/node/backend';
import { installAwsLambda, invoke, streamifyResponse, type LocalResponseStream } from '../../../scripts/lambda-local/awslambda';

/**
 * The handler itself, invoked through the awslambda stand-in with hand-built events (no HTTP front): what
 * reaches the response stream, and the access-log line. Only gateway-built responses here; forwarded ones
 * are covered end to end in test/e2e/lambda.test.ts.
 */

const CONFIG = `
[[buckets]]
name = "public"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "http://127.0.0.1:9"
bucket_name = "public"
`;

function event(overrides: Partial<LambdaFunctionURLEvent> & { method?: string } = {}): LambdaFunctionURLEvent {
  const { method = 'GET', ...rest } = overrides;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    headers: { host: 'abc.lambda-url.eu-west-1.on.aws' },
    requestContext: {
      accountId: 'anonymous',
      apiId: 'abc',
      domainName: 'abc.lambda-url.eu-west-1.on.aws',
      domainPrefix: 'abc',
      http: { method, path: rest.rawPath ?? '/', protocol: 'HTTP/1.1', sourceIp: '203.0.113.1', userAgent: 'test' },
      requestId: 'r',
      routeKey: '$default',
      stage: '$default',
      time: '22/Nov/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
    ...rest,
  };
}

/** The invocation's id, which the Function URL also answers as `x-amzn-RequestId`. */
const AWS_REQUEST_ID = '8f0e4b4e-3c1a-4d2b-9a55-0c6f1d2e3b4a';

/** Runs one invocation and splits what the stream carried into prelude and body. */
async function run(e: LambdaFunctionURLEvent): Promise<{ prelude: { statusCode: number; headers: Record<string, string> }; body: string; logs: string[] }> {
  const logs: string[] = [];
  const backend = nodeBackend();
  const gateway = new Gateway(parseConfig(CONFIG), { client: backend.client });
  const handler = streamifyResponse(streamingHandler(async () => ({ gateway, backend }), (line) => logs.push(line)));
  const stream: LocalResponseStream = invoke(handler, e, { awsRequestId: AWS_REQUEST_ID });
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  const nul = bytes.indexOf(0);
  expect(bytes.subarray(nul, nul + 8).every((b) => b === 0)).toBe(true);
  return { prelude: JSON.parse(bytes.subarray(0, nul).toString()), body: bytes.subarray(nul + 8).toString(), logs };
}

beforeAll(() => installAwsLambda());

describe('Lambda streaming handler', () => {
  test('GIVEN an unknown bucket WHEN invoked THEN the prelude carries 404 and the request id, and the XML body follows', async () => {
    const { prelude, body, logs } = await run(event({ rawPath: '/nope/key' }));
    expect(prelude.statusCode).toBe(404);
    expect(prelude.headers['content-type']).toBe('application/xml');
    // One id for the client: the invocation's, which the Function URL also sends as x-amzn-RequestId.
    expect(prelude.headers['x-amz-request-id']).toBe(AWS_REQUEST_ID);
    expect(body).toContain(`<RequestId>${AWS_REQUEST_ID}</RequestId>`);
    expect(body).toContain('<Code>NoSuchBucket</Code>');
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0])).toMatchObject({ method: 'GET', path: '/nope/key', status: 404, requestId: prelude.headers['x-amz-request-id'] });
  });

  test("GIVEN Lambda's X-Ray trace id and a client's traceparent WHEN invoked THEN the log line records both traces", async () => {
    const xray = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
    process.env._X_AMZN_TRACE_ID = xray;
    try {
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const { logs } = await run(event({ rawPath: '/nope/key', headers: { host: 'h', traceparent } }));
      expect(JSON.parse(logs[0])).toMatchObject({ xrayTraceId: xray, lambdaRequestId: AWS_REQUEST_ID, traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '00f067aa0ba902b7', errorCode: 'NoSuchBucket' });
    } finally {
      delete process.env._X_AMZN_TRACE_ID;
    }
  });

  test('GIVEN a HEAD on an unknown bucket WHEN invoked THEN status and headers still go out, with no body', async () => {
    const { prelude, body } = await run(event({ method: 'HEAD', rawPath: '/nope/key' }));
    expect(prelude.statusCode).toBe(404);
    expect(prelude.headers['x-amz-request-id']).toBe(AWS_REQUEST_ID);
    expect(body).toBe('');
  });

  test('GIVEN an unreachable backend WHEN a forwarded read fails before the first byte THEN the client gets the S3 error, not a cut stream', async () => {
    const { prelude, body, logs } = await run(event({ rawPath: '/public/key.txt' }));
    expect(prelude.statusCode).toBe(503);
    expect(body).toContain('<Code>ServiceUnavailable</Code>');
    expect(JSON.parse(logs[0])).toMatchObject({ status: 503 });
  });

  test('GIVEN a header value no HTTP header may carry WHEN invoked THEN 400 InvalidRequest, as on the Node server', async () => {
    const { prelude, body } = await run(event({ rawPath: '/public/key.txt', headers: { host: 'h', 'x-amz-meta-a': 'a\nb' } }));
    expect(prelude.statusCode).toBe(400);
    expect(body).toContain('<Code>InvalidRequest</Code>');
  });

  test('GIVEN a header value beyond Latin-1 in the event WHEN invoked THEN the request is served, not failed', async () => {
    const { prelude } = await run(event({ rawPath: '/nope/key', headers: { host: 'h', 'x-amz-meta-name': '€uro' } }));
    expect(prelude.statusCode).toBe(404);
  });
});
