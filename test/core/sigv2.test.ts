import { parseConfig } from '../../functions/core/config/parse';
import { Gateway } from '../../functions/core/gateway';
import type { BackendClient, Dispatch, ProxyRequest } from '../../functions/core/http';
import { stringToSignV2 } from '../../functions/core/sigv2';
import { importSessionKey, sealSession } from '../../functions/core/sts';
import { createHmac, randomBytes } from 'node:crypto';
import { bucketToml, credentialToml, fieldsToml } from '../support/config-toml';

/**
 * SigV2 presigned links, checked against AWS's published example ("Query string request authentication",
 * RESTAuthentication): a virtual-hosted GET of johnsmith's photos/puppy.jpg. The gateway's clock is frozen
 * just before the link expires. Real clients' links (aws-cli v1, boto3, s3cmd) are in
 * test/e2e/browsers-tools.test.ts.
 */
const AWS_EXAMPLE = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const EXPIRES = 1175139620;
const QUERY = `AWSAccessKeyId=${AWS_EXAMPLE.accessKeyId}&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D&Expires=${EXPIRES}`;

const config = (extra = ''): string => [
  fieldsToml({ virtual_host_domains: ['s3.amazonaws.com'] }),
  extra,
  bucketToml({ name: 'johnsmith', backend_type: 's3' }, { endpoint: 'http://backend.test:9000', bucket_name: 'photos' }),
  credentialToml(AWS_EXAMPLE, {}, [{ bucket: 'johnsmith', actions: ['get_object', 'head_object', 'put_object', 'list_bucket', 'delete_object'] }]),
].join('\n');

const noNetwork: BackendClient = async () => {
  throw new Error('no network in this spec');
};

function gateway(extra = '', now = (EXPIRES - 60) * 1000): Gateway {
  return new Gateway(parseConfig(config(extra)), { client: noNetwork, now: () => now });
}

function request(method: string, path: string, rawQuery: string, headers: Record<string, string> = {}): ProxyRequest {
  return {
    method,
    requestId: 'REQ',
    rawPath: path,
    rawQuery,
    headers: new Headers({ host: 'johnsmith.s3.amazonaws.com', ...headers }),
    body: () => new ReadableStream({ start: (c) => c.close() }),
  };
}

function codeOf(dispatch: Dispatch): string | undefined {
  if (dispatch.kind !== 'response') return undefined;
  return /<Code>([^<]*)<\/Code>/.exec(String(dispatch.response.body))?.[1];
}

describe('SigV2 presigned links', () => {
  it('builds the string to sign of AWS\'s example', () => {
    const toSign = stringToSignV2({ method: 'GET', headers: new Headers(), rawQuery: QUERY, resourcePath: '/johnsmith/photos/puppy.jpg' }, EXPIRES);
    expect(toSign).toBe(`GET\n\n\n${EXPIRES}\n/johnsmith/photos/puppy.jpg`);
  });

  it('puts sub-resources and x-amz-* parameters (a session token) where S3 signs them', () => {
    const toSign = stringToSignV2(
      { method: 'GET', headers: new Headers(), rawQuery: 'versionId=v%201&x-amz-security-token=T&response-content-type=text%2Fplain&unrelated=1', resourcePath: '/b/k' },
      5,
    );
    expect(toSign).toBe('GET\n\n\n5\nx-amz-security-token:T\n/b/k?response-content-type=text/plain&versionId=v 1');
  });

  it('GIVEN AWS\'s example link WHEN it is opened on the bucket\'s host THEN the read is forwarded', async () => {
    const dispatch = await gateway().handle(request('GET', '/photos/puppy.jpg', QUERY));
    expect(dispatch.kind).toBe('forward');
    if (dispatch.kind === 'forward') expect(dispatch.request.url).toBe('http://backend.test:9000/photos/photos/puppy.jpg');
  });

  it.each([
    ['tampered (another key)', () => gateway().handle(request('GET', '/photos/kitten.jpg', QUERY)), 'SignatureDoesNotMatch'],
    ['expired', () => gateway('', (EXPIRES + 1) * 1000).handle(request('GET', '/photos/puppy.jpg', QUERY)), 'AccessDenied'],
    ['valid for more than seven days', () => gateway('', (EXPIRES - 8 * 86400) * 1000).handle(request('GET', '/photos/puppy.jpg', QUERY)), 'AccessDenied'],
    ['switched off (sigv2_presigned_urls = false)', () => gateway('sigv2_presigned_urls = false').handle(request('GET', '/photos/puppy.jpg', QUERY)), 'InvalidRequest'],
    ['header-signed', () => gateway().handle(request('GET', '/photos/puppy.jpg', '', { authorization: 'AWS AKIAIOSFODNN7EXAMPLE:bWq2s1WEIj+Ydj0vQ697zp+IXMU=', date: 'Tue, 27 Mar 2007 19:36:42 +0000' })), 'InvalidRequest'],
  ])('GIVEN a link that is %s WHEN opened THEN refused', async (_, send, code) => {
    expect(codeOf(await send())).toBe(code);
  });

  it('GIVEN a valid SigV2 signature WHEN it is used to write or list THEN AccessDenied: SigV2 only reads objects', async () => {
    const sign = (method: string, resource: string): string =>
      `AWSAccessKeyId=${AWS_EXAMPLE.accessKeyId}&Expires=${EXPIRES}&Signature=${encodeURIComponent(
        createHmac('sha1', AWS_EXAMPLE.secretAccessKey).update(`${method}\n\n\n${EXPIRES}\n${resource}`).digest('base64'),
      )}`;
    const put = await gateway().handle(request('PUT', '/photos/new.jpg', sign('PUT', '/johnsmith/photos/new.jpg'), { 'content-length': '0' }));
    expect(codeOf(put)).toBe('AccessDenied');
    const list = await gateway().handle(request('GET', '/', sign('GET', '/johnsmith/')));
    expect(codeOf(list)).toBe('AccessDenied');
    const del = await gateway().handle(request('DELETE', '/photos/puppy.jpg', sign('DELETE', '/johnsmith/photos/puppy.jpg')));
    expect(codeOf(del)).toBe('AccessDenied');
    const head = await gateway().handle(request('HEAD', '/photos/puppy.jpg', sign('HEAD', '/johnsmith/photos/puppy.jpg')));
    expect(head.kind).toBe('forward');
  });

  it('GIVEN temporary credentials WHEN their SigV2 link carries the session token (as botocore puts it) THEN it reads within the session\'s scopes only', async () => {
    const sessionKey = randomBytes(32);
    const temporary = { accessKeyId: 'ASIATEMPORARY0000000', secretAccessKey: 'temporary/secret/0000000000000000000000' };
    const token = await sealSession(await importSessionKey(sessionKey), {
      ...temporary,
      scopes: [{ bucket: 'johnsmith', prefixes: ['photos/'], actions: ['get_object'] }],
      session: { roleId: 'arn:aws:iam::000000000000:role/reader', subject: 'someone', expiresAt: (EXPIRES + 3600) * 1000 },
    });
    const link = (key: string): string => {
      const toSign = `GET\n\n\n${EXPIRES}\nx-amz-security-token:${token}\n/johnsmith/${key}`;
      const signature = createHmac('sha1', temporary.secretAccessKey).update(toSign).digest('base64');
      return `AWSAccessKeyId=${temporary.accessKeyId}&Expires=${EXPIRES}&x-amz-security-token=${encodeURIComponent(token)}&Signature=${encodeURIComponent(signature)}`;
    };
    const gw = new Gateway(parseConfig(config(), { SESSION_TOKEN_KEY: sessionKey.toString('base64') }), { client: noNetwork, now: () => (EXPIRES - 60) * 1000 });
    expect((await gw.handle(request('GET', '/photos/puppy.jpg', link('photos/puppy.jpg')))).kind).toBe('forward');
    expect(codeOf(await gw.handle(request('GET', '/private/puppy.jpg', link('private/puppy.jpg'))))).toBe('AccessDenied');
  });
});
