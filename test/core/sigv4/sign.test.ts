/**
 * Requests signed by the AWS SDK's signer (`@smithy/signature-v4`) are accepted, any single change to what
 * they sign is refused, and the gateway's own signer produces the SDK's signatures.
 */
import { createHash } from 'node:crypto';
import type { HttpRequest, QueryParameterBag } from '@smithy/types';
import { S3Error } from '../../../functions/core/errors';
import {
  parseSignedRequest,
  presignUrl,
  signRequest,
  verifySignature,
  type SignableRequest,
} from '../../../functions/core/sigv4';
import { buildQuery, smithySigner, type TestCredentials } from './smithy';
import { seededRandom as random } from '../../support/random';

const NOW = Date.UTC(2024, 1, 29, 12, 30, 15);
const REGION = 'eu-west-3';
const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

/** Path segments as a client sends them (percent-encoding intact): S3 signs them as they are. */
const SEGMENTS = [
  'b', 'photos', 'a%20b', '%2A', '~', '%25', '%E2%82%AC', 'a+b', 'a%2Fb', '..', '%2e%2e', '.', '',
  "it's(1)!", 'x=y;z,w', '%7E', 'A-Z_0.9', '$@:',
];

/** Query parameters: the raw text a client may send and the decoded name and value the SDK signs. */
const QUERY_PARAMS: ReadonlyArray<readonly [raw: string, name: string, value: string]> = [
  ['list-type=2', 'list-type', '2'],
  ['prefix=a%2Fb%20c', 'prefix', 'a/b c'],
  ['prefix=dir/', 'prefix', 'dir/'],
  ['q=x+y', 'q', 'x+y'],
  ['q=x%2By', 'q', 'x+y'],
  ['uploads', 'uploads', ''],
  ['delimiter=%2F', 'delimiter', '/'],
  ['name=%C3%A9%E2%82%AC', 'name', 'é€'],
  ['name=%c3%a9', 'name', 'é'],
  ['eq=a%3Db', 'eq', 'a=b'],
  ['eq=a=b', 'eq', 'a=b'],
  ['t=%7e', 't', '~'],
  ['response-content-disposition=attachment%3B%20filename%3D%22r%C3%A9sum%C3%A9.pdf%22',
    'response-content-disposition', 'attachment; filename="résumé.pdf"'],
  ['partNumber=3', 'partNumber', '3'],
  ['uploadId=abc%2Fdef', 'uploadId', 'abc/def'],
];

/** Headers a client signs, with spaced and comma-joined (repeated) values. */
const HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['content-type', 'text/plain; charset=utf-8'],
  ['x-amz-meta-spaced', '  a   b\tc  '],
  ['x-amz-meta-list', 'a,b , c'],
  ['range', 'bytes=0-9'],
  ['if-match', '"0123abc"'],
  ['content-md5', '1B2M2Y8AsgTpgAmY7PhCfg=='],
  ['x-amz-server-side-encryption', 'AES256'],
  ['X-Amz-Meta-Upper', 'Value'],
];

const PAYLOAD_HASHES = [EMPTY_SHA256, 'UNSIGNED-PAYLOAD', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', createHash('sha256').update('hello').digest('hex')];
const HOSTS = ['gw.example.com', 'localhost:8080'];
const METHODS = ['GET', 'PUT', 'HEAD', 'DELETE', 'POST'];

interface GeneratedCase {
  readonly id: number;
  readonly method: string;
  readonly host: string;
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly query: QueryParameterBag;
  readonly headers: Readonly<Record<string, string>>;
  readonly payloadHash: string;
  readonly credentials: TestCredentials;
}

function pick<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

function some<T>(rng: () => number, items: readonly T[], max: number): T[] {
  const count = Math.floor(rng() * (max + 1));
  return Array.from({ length: count }, () => pick(rng, items));
}

function generateCase(id: number): GeneratedCase {
  const rng = random(id + 1);
  const rawPath = `/${some(rng, SEGMENTS, 4).join('/') || 'b'}`;
  const params = some(rng, QUERY_PARAMS, 4);
  const query: Record<string, string | string[]> = {};
  for (const [, name, value] of params) {
    const existing = query[name];
    query[name] = existing === undefined ? value : [...(typeof existing === 'string' ? [existing] : existing), value];
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of some(rng, HEADERS, 4)) headers[name] = value;
  const credentials: TestCredentials = {
    accessKeyId: `AKID${id}`,
    secretAccessKey: `secret/${id}+${'x'.repeat(id % 40)}`,
    ...(rng() < 0.3 ? { sessionToken: `token/${id}+=` } : {}),
  };
  return {
    id,
    method: pick(rng, METHODS),
    host: pick(rng, HOSTS),
    rawPath,
    rawQuery: params.map(([raw]) => raw).join('&'),
    query,
    headers,
    payloadHash: pick(rng, PAYLOAD_HASHES),
    credentials,
  };
}

const CASES = Array.from({ length: 120 }, (_, i) => generateCase(i));

function smithyRequest(c: GeneratedCase, headers: Record<string, string>): HttpRequest {
  const [hostname, port] = c.host.split(':');
  return {
    method: c.method,
    protocol: 'https:',
    hostname: hostname!,
    ...(port === undefined ? {} : { port: Number(port) }),
    path: c.rawPath,
    query: structuredClone(c.query),
    headers: { host: c.host, ...headers },
  };
}

/** A header-signed request as the SDK would send it. */
async function headerSigned(c: GeneratedCase): Promise<SignableRequest> {
  const signed = await smithySigner(c.credentials, REGION).sign(
    smithyRequest(c, { ...c.headers, 'x-amz-content-sha256': c.payloadHash }),
    { signingDate: new Date(NOW) },
  );
  return { method: c.method, rawPath: c.rawPath, rawQuery: c.rawQuery, headers: new Headers(signed.headers) };
}

/**
 * A presigned request. Half the cases put the payload hash in the query as the JS SDK's presigner does
 * (`X-Amz-Content-Sha256=UNSIGNED-PAYLOAD`), the other half sign UNSIGNED-PAYLOAD without it, as botocore does.
 */
async function presigned(c: GeneratedCase): Promise<SignableRequest> {
  const hashInQuery = c.id % 2 === 0;
  const sha: Record<string, string> = { [hashInQuery ? 'X-Amz-Content-Sha256' : 'x-amz-content-sha256']: 'UNSIGNED-PAYLOAD' };
  const keep = new Set(['x-amz-content-sha256']);
  const signed = await smithySigner(c.credentials, REGION).presign(smithyRequest(c, { ...c.headers, ...sha }), {
    signingDate: new Date(NOW),
    expiresIn: 3600,
    ...(hashInQuery ? {} : { unhoistableHeaders: keep, unsignableHeaders: keep }),
  });
  const added = Object.fromEntries(
    Object.entries(signed.query ?? {}).filter(([name]) => !(name in c.query)),
  ) as Record<string, string>;
  const rawQuery = [c.rawQuery, buildQuery(added)].filter((part) => part !== '').join('&');
  const headers = new Headers(signed.headers);
  headers.delete('x-amz-content-sha256');
  return { method: c.method, rawPath: c.rawPath, rawQuery, headers };
}

async function verify(request: SignableRequest, secret: string, now = NOW) {
  const info = parseSignedRequest(request.headers, request.rawQuery);
  if (info === undefined) throw new Error('request is anonymous');
  return verifySignature(request, info, secret, now);
}

async function refusalCode(request: SignableRequest, secret: string): Promise<string> {
  try {
    await verify(request, secret);
  } catch (error) {
    if (error instanceof S3Error) return error.code;
    throw error;
  }
  return 'accepted';
}

/** Single changes to a signed request, each of which must void the signature. */
function mutations(request: SignableRequest, secret: string): Array<[string, SignableRequest, string]> {
  const withHeaders = (edit: (h: Headers) => void): SignableRequest => {
    const headers = new Headers();
    request.headers.forEach((value, name) => headers.set(name, value));
    edit(headers);
    return { ...request, headers };
  };
  const info = parseSignedRequest(request.headers, request.rawQuery)!;
  const header = info.signedHeaders.find((name) => name !== 'x-amz-date' && name !== 'host') ?? 'host';
  const laterDate = '20240229T123016Z';
  return [
    ['path', { ...request, rawPath: `${request.rawPath}x` }, secret],
    ['path encoding', { ...request, rawPath: request.rawPath.replace(/^\/./, (s) => `/%${s.charCodeAt(1).toString(16).toUpperCase()}`) }, secret],
    ['query', { ...request, rawQuery: request.rawQuery === '' ? 'extra=1' : `${request.rawQuery}&extra=1` }, secret],
    ['method', { ...request, method: request.method === 'GET' ? 'PUT' : 'GET' }, secret],
    [`signed header ${header}`, withHeaders((h) => h.set(header, `${h.get(header)}x`)), secret],
    ['secret', request, `${secret}x`],
    info.presigned
      ? ['date', { ...request, rawQuery: request.rawQuery.replace(info.amzDate, laterDate) }, secret]
      : ['date', withHeaders((h) => h.set('x-amz-date', laterDate)), secret],
  ];
}

describe.each([
  ['header-signed', headerSigned],
  ['presigned', presigned],
])('%s requests signed by @smithy/signature-v4', (_, sign) => {
  it.each(CASES.map((c) => [c.id, c] as const))('case %i is accepted, and refused after any single change', async (_, c) => {
    const request = await sign(c);
    await expect(verify(request, c.credentials.secretAccessKey)).resolves.toBeDefined();
    for (const [label, mutated, secret] of mutations(request, c.credentials.secretAccessKey)) {
      const code = await refusalCode(mutated, secret);
      if (code !== 'SignatureDoesNotMatch') throw new Error(`${label} change: ${code}`);
    }
  });
});

describe('the gateway signer matches @smithy/signature-v4', () => {
  it.each(CASES.map((c) => [c.id, c] as const))('signRequest case %i has the SDK signature', async (_, c) => {
    const url = `https://${c.host}${c.rawPath}${c.rawQuery === '' ? '' : `?${c.rawQuery}`}`;
    const ours = await signRequest({
      method: c.method, url, headers: c.headers, payloadHash: c.payloadHash, credentials: c.credentials,
      region: REGION, service: 's3', now: NOW,
    });
    const theirs = await smithySigner(c.credentials, REGION).sign(
      smithyRequest(c, { ...c.headers, 'x-amz-content-sha256': c.payloadHash }),
      { signingDate: new Date(NOW) },
    );
    expect(ours['authorization']).toBe(theirs.headers['authorization']);
    expect(ours['x-amz-security-token']).toBe(c.credentials.sessionToken);
    const request = { method: c.method, rawPath: c.rawPath, rawQuery: c.rawQuery, headers: new Headers(ours) };
    await expect(verify(request, c.credentials.secretAccessKey)).resolves.toBeDefined();
  });

  it.each(CASES.map((c) => [c.id, c] as const))('presignUrl case %i has the SDK signature', async (_, c) => {
    const signedHeaders: Record<string, string> = c.id % 3 === 0 ? { 'Content-Type': 'image/png' } : {};
    const url = await presignUrl({
      method: c.method, url: `https://${c.host}${c.rawPath}${c.rawQuery === '' ? '' : `?${c.rawQuery}`}`,
      credentials: c.credentials, region: REGION, service: 's3', now: NOW, expiresSeconds: 900, signedHeaders,
    });
    const keep = new Set(['x-amz-content-sha256']);
    const theirs = await smithySigner(c.credentials, REGION).presign(
      smithyRequest(
        { ...c, headers: {} },
        { ...signedHeaders, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      ),
      { signingDate: new Date(NOW), expiresIn: 900, unhoistableHeaders: keep, unsignableHeaders: keep },
    );
    expect(url).toMatch(new RegExp(`&X-Amz-Signature=${theirs.query!['X-Amz-Signature']}$`));
    expect(url.startsWith(`https://${c.host}${c.rawPath}?`)).toBe(true);

    const rawQuery = url.slice(url.indexOf('?') + 1);
    const headers = new Headers({ host: c.host, ...signedHeaders });
    await expect(verify({ method: c.method, rawPath: c.rawPath, rawQuery, headers }, c.credentials.secretAccessKey)).resolves.toBeDefined();
  });
});
