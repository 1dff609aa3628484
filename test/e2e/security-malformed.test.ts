import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import type { Keys } from '../support/clients';
import { bucketToml, credentialToml, rgwOptions } from '../support/config-toml';
import { RUNTIMES, startGateway, type RunningGateway } from '../support/gateway';
import { seededRandom } from '../support/random';
import { Sha256, errorCode } from '../support/raw-request';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';

/**
 * Bad input gets a clear answer: a fixed, seeded stream of malformed requests (half of them validly signed, so
 * they pass authentication and reach parsing, routing and the backend) against every runtime over Ceph RGW.
 * Every one must get a complete HTTP answer: an error as S3's XML with the answer's own request id (HEAD:
 * none, as on S3), never a 500, never a hang, never a secret; and the gateway must still serve afterwards.
 * The Node server gets the whole stream, since its HTTP parsing is the gateway's own; the other runtimes get
 * the requests their platforms pass on (a well-formed request line and ASCII headers): a Function URL, the
 * edge and a Web Function's front answer the rest themselves.
 */
const ADMIN: Keys = { accessKeyId: 'FUZZADMINKEY00000000', secretAccessKey: 'fuzz/admin/secret/00000000000000000000' };
const REQUESTS = 2000;

let rgw: Rgw;
let direct: S3Client;
let config: string;

beforeAll(async () => {
  rgw = await startRgw();
  await createBucket(rgw, 'fuzz');
  direct = rgwS3Client(rgw);
  await direct.send(new PutObjectCommand({ Bucket: 'fuzz', Key: 'hello.txt', Body: 'hello' }));
  config = [
    bucketToml({ name: 'pub', backend_type: 's3', anonymous_access: true }, rgwOptions(rgw, 'fuzz')),
    bucketToml({ name: 'priv', backend_type: 's3', anonymous_access: false }, rgwOptions(rgw, 'fuzz')),
    credentialToml(ADMIN, { principal_name: 'fuzz' }, [{ bucket: '*', prefixes: [], actions: ['get_object', 'head_object', 'put_object', 'delete_object', 'list_bucket', 'create_multipart_upload', 'upload_part', 'complete_multipart_upload', 'abort_multipart_upload', 'get_object_tagging', 'put_object_tagging'] }]),
  ].join('\n');
}, 120_000);

afterAll(async () => {
  direct?.destroy();
  await rgw?.stop();
});

/** Pickers over a seeded generator: the same requests in every run. */
function generator(seed: number): { pick: <T>(items: readonly T[]) => T; chance: (p: number) => boolean; below: (n: number) => number } {
  const next = seededRandom(seed);
  const below = (n: number): number => Math.floor(next() * n);
  return { pick: (items) => items[below(items.length)], chance: (p) => next() < p, below };
}

const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'PATCH', 'get', 'COPY'];
const BUCKETS = ['pub', 'priv', 'nope', '', 'PUB', 'pub.', 'a'.repeat(70), '%70ub', 'sts'];
const KEY_PARTS = ['hello.txt', 'a/b', '..', '%2e%2e', '%2F', '%00', '%ff', '%', '%zz', 'é', '%C3%A9', ' ', '+', 'x'.repeat(1100), '\t', '%0d%0a', '//', '.', '#f'];
const QUERIES = [
  '', '?uploads', '?uploadId=abc', '?uploadId=&partNumber=1', '?partNumber=0&uploadId=x', '?partNumber=abc&uploadId=x', '?partNumber=10001&uploadId=x',
  '?list-type=2', '?list-type=2&max-keys=-1', '?list-type=2&max-keys=99999999999999999999', '?list-type=2&continuation-token=%%%',
  '?list-type=2&continuation-token=AAAA', '?list-type=3', '?marker=%ff', '?delimiter=&prefix=', '?encoding-type=xml', '?tagging', '?delete',
  '?versions', '?versionId=null', '?versionId=', '?location', '?acl', '?versioning', '?uploads&max-uploads=-5', '?list-type=2&start-after=%00',
  `?prefix=${'p'.repeat(2000)}`, '?response-content-type=%0d%0aX:1', '?response-content-disposition=a%0aSet-Cookie:x',
  '?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=x', '?X-Amz-Signature=abc', '?Signature=a&Expires=1&AWSAccessKeyId=x', '?a=b&a=c', '?&&&',
  '?=', '?%', '?Action=AssumeRoleWithWebIdentity', '?Action=GetCallerIdentity', '?attributes', '?attributes&versionId=x',
];
const HEADERS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['range', ['bytes=0-0', 'bytes=-1', 'bytes=5-1', 'bytes=abc', 'bytes=0-1,2-3', 'items=0-1', 'bytes=99999999999999999999-']],
  ['x-amz-content-sha256', ['UNSIGNED-PAYLOAD', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', 'STREAMING-UNSIGNED-PAYLOAD-TRAILER', 'garbage', '0'.repeat(64)]],
  ['x-amz-decoded-content-length', ['-1', 'abc', '5', '99999999999999999999']],
  ['content-md5', ['abc', 'AAAAAAAAAAAAAAAAAAAAAA==', '1B2M2Y8AsgTpgAmY7PhCfg==']],
  ['x-amz-checksum-crc32', ['abc', 'AAAAAA==', '']],
  ['x-amz-sdk-checksum-algorithm', ['CRC32', 'NOPE']],
  ['x-amz-trailer', ['x-amz-checksum-crc32', 'x-amz-checksum-nope', 'a,b']],
  ['x-amz-copy-source', ['/pub/hello.txt', '%', '/priv/..%2f..', '/nope/x', '', '/pub/hello.txt?versionId=']],
  ['x-amz-copy-source-range', ['bytes=0-0', 'bytes=a-b']],
  ['x-amz-metadata-directive', ['COPY', 'REPLACE', 'NOPE']],
  ['x-amz-meta-a', ['v', 'x'.repeat(3000)]],
  // A header name that is also a property of every object: lookups by header name must take own entries.
  ['constructor', ['x']],
  ['if-match', ['"abc"', '*', '']],
  ['if-modified-since', ['garbage', 'Wed, 21 Oct 2015 07:28:00 GMT']],
  ['origin', ['http://x', 'null']],
  ['access-control-request-method', ['GET', 'FOO']],
  ['content-type', ['multipart/form-data; boundary=abc', 'multipart/form-data', 'application/x-www-form-urlencoded']],
  ['x-amz-tagging', ['a=b', '%%']],
  ['x-amz-object-attributes', ['ETag,ObjectSize', 'ETag,Nope', '', ' , ']],
  ['x-amz-security-token', ['abc', 'A'.repeat(5000)]],
  ['x-amz-date', ['20260101T000000Z', 'garbage']],
  ['authorization', ['AWS4-HMAC-SHA256', `AWS4-HMAC-SHA256 Credential=${ADMIN.accessKeyId}/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00`, 'AWS x:abc', 'Bearer x']],
];
const BODIES = [
  '', 'short body', '<Delete><Object><Key>a</Key></Object></Delete>', '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>',
  '<!DOCTYPE x [<!ENTITY a "aaaa">]><Delete>&a;</Delete>', '5;chunk-signature=abc\r\nhello\r\n0;chunk-signature=abc\r\n\r\n',
  '5\r\nhello\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n', 'Action=AssumeRoleWithWebIdentity&WebIdentityToken=abc&RoleArn=x&RoleSessionName=s',
];
const signer = new SignatureV4({ credentials: ADMIN, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false, applyChecksum: false });

interface Fuzzed {
  readonly method: string;
  readonly wire: Buffer;
  readonly description: string;
}

/** Request `n` of the stream to the gateway at `host`: its bytes on the wire, and what it was, for a failure's message. */
async function fuzzed(n: number, host: string): Promise<Fuzzed> {
  const { pick, chance, below } = generator(n * 7919 + 1);
  const method = pick(METHODS);
  const key = chance(0.3) ? '' : Array.from({ length: 1 + Math.floor(Number(chance(0.5)) + Number(chance(0.5))) }, () => pick(KEY_PARTS)).join(pick(['/', '', '%2F']));
  const path = `/${pick(BUCKETS)}${key !== '' || chance(0.5) ? `/${key}` : ''}`;
  const query = pick(QUERIES) + (chance(0.3) ? pick(QUERIES).replace('?', '&') : '');
  let headers: Record<string, string> = { host };
  for (let i = Math.floor(Number(chance(0.6)) + Number(chance(0.6)) + Number(chance(0.4))); i > 0; i--) {
    const [name, values] = pick(HEADERS);
    headers[name] = pick(values);
  }
  const body = Buffer.from(method === 'PUT' || method === 'POST' || chance(0.1) ? pick(BODIES) : '');
  // Half are validly signed over what is sent, so they get past authentication (a target the signer cannot
  // take, with raw spaces or non-ASCII, stays unsigned).
  if (chance(0.5) && /^[\x21-\x7e]*$/.test(path + query)) {
    const signed = await signer.sign({
      method,
      protocol: 'http:',
      hostname: host.split(':')[0],
      port: Number(host.split(':')[1]),
      path,
      query: signableQuery(query),
      headers: { ...headers, 'x-amz-content-sha256': headers['x-amz-content-sha256'] ?? createHash('sha256').update(body).digest('hex') },
      body,
    });
    headers = signed.headers;
    // Now and then one character of the signed Authorization changed (a name in SignedHeaders among them).
    if (chance(0.1)) {
      const value = headers.authorization;
      const at = below(value.length);
      headers.authorization = value.slice(0, at) + pick(['?', ' ', ',', ';', '/', '=', 'A', '0']) + value.slice(at + 1);
    }
  }
  const chunked = chance(0.1);
  let head = `${method} ${path}${query} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += chunked ? 'transfer-encoding: chunked\r\n' : `content-length: ${body.length}\r\n`;
  const framed = chunked ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from(body.length > 0 ? '\r\n0\r\n\r\n' : '\r\n')]) : body;
  const description = `#${n} ${method} ${path.slice(0, 80)}${query.slice(0, 80)} [${Object.keys(headers).join(' ')}]${chunked ? ' chunked' : ''} body=${body.length}`;
  return { method, wire: Buffer.concat([Buffer.from(`${head}connection: close\r\n\r\n`, 'latin1'), framed]), description };
}

function signableQuery(query: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of query.slice(1).split('&').filter(Boolean)) {
    const [name, value = ''] = part.split('=');
    try {
      out[decodeURIComponent(name)] = decodeURIComponent(value);
    } catch {
      out[name] = value;
    }
  }
  return out;
}

interface Answer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

/** The final answer to `wire` (interim 100 answers skipped), read until the server closes the connection. */
function send(endpoint: string, wire: Buffer): Promise<Answer | 'no answer' | 'timeout'> {
  const { port, hostname } = new URL(endpoint);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('timeout');
    }, 15_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1').replace(/^(HTTP\/1\.1 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return resolve('no answer');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0), head: text.slice(0, end), body: text.slice(end + 4) });
    });
    socket.write(wire);
  });
}

/** What is wrong with `answer` to a request sent with `method`, or undefined when it is what S3 would send. */
function fault(method: string, answer: Answer | 'no answer' | 'timeout'): string | undefined {
  if (typeof answer === 'string') return answer;
  if (answer.status < 100 || answer.status > 599) return `a malformed status line: ${answer.head.split('\r\n')[0]}`;
  if (answer.status === 500) return `500: ${answer.body.slice(0, 200)}`;
  if (answer.head.includes(rgw.secretAccessKey) || answer.body.includes(rgw.secretAccessKey) || answer.body.includes(ADMIN.secretAccessKey)) return 'a secret in the answer';
  if (answer.status < 400 || method === 'HEAD') return undefined;
  const requestId = /\r\nx-amz-request-id: ([^\r]+)/i.exec(answer.head)?.[1];
  if (errorCode(answer.body) === undefined) return `${answer.status} without an XML error: ${answer.body.slice(0, 200)}`;
  if (requestId === undefined || !answer.body.includes(`<RequestId>${requestId}</RequestId>`)) return `${answer.status} whose RequestId is not its x-amz-request-id`;
  return undefined;
}

/**
 * Whether a platform in front of the gateway passes `wire` on: a well-formed request line with a method HTTP
 * defines (a Web Function's front refuses others), ASCII headers.
 */
function passedOn(wire: Buffer): boolean {
  const head = wire.toString('latin1').split('\r\n\r\n')[0];
  return /^(GET|HEAD|PUT|POST|DELETE|OPTIONS|PATCH) [\x21-\x7e]+ HTTP\/1\.1\r\n/.test(head) && !/[^\x00-\x7f]/.test(head);
}

describe.each(RUNTIMES)('malformed requests (%s runtime)', (runtime) => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config, env: { RGW_SECRET: rgw.secretAccessKey } });
  }, 60_000);

  afterAll(() => gw?.stop());

  test(`GIVEN ${REQUESTS} malformed requests, half validly signed THEN each gets a whole answer, errors as S3 XML, no 500, no secret, and the gateway still serves`, async () => {
    const host = new URL(gw.endpoint).host;
    const faults: string[] = [];
    for (let n = 0; n < REQUESTS; n += 8) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const request = await fuzzed(n + i, host);
          if (runtime !== 'node' && !passedOn(request.wire)) return;
          const problem = fault(request.method, await send(gw.endpoint, request.wire));
          if (problem !== undefined) faults.push(`${request.description}: ${problem}`);
        }),
      );
    }
    expect(faults).toEqual([]);
    // The stream may have deleted or overwritten hello.txt (it signs some DELETEs and PUTs): read a fresh object.
    await direct.send(new PutObjectCommand({ Bucket: 'fuzz', Key: 'after.txt', Body: 'still serving' }));
    const after = await fetch(`${gw.endpoint}/pub/after.txt`);
    expect([after.status, await after.text()]).toEqual([200, 'still serving']);
  }, 180_000);
});
