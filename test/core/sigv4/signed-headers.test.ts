/**
 * The unsigned-header rule: a signed request, header-signed or presigned, is refused with 403 AccessDenied and
 * `HeadersNotSigned` when it carries an `x-amz-*` header (or Content-MD5) its signature does not list, as S3
 * refuses it; standard headers S3 accepts unsigned stay accepted. Requests are signed by the AWS SDK's signer.
 */
import type { HttpRequest } from '@smithy/types';
import { S3Error } from '../../../functions/core/errors';
import { parseSignedRequest, unsignedHeaders, verifySignature, type SignableRequest } from '../../../functions/core/sigv4';
import { buildQuery, smithySigner, type TestCredentials } from './smithy';

const NOW = Date.UTC(2026, 5, 1, 12);
const KEYS: TestCredentials = { accessKeyId: 'UPLOADERKEY000000000', secretAccessKey: 'uploader/secret/0000000000000000000000' };
const HOST = 'gw.example.com';
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

function smithyRequest(method: string, path: string, headers: Record<string, string>): HttpRequest {
  return { method, protocol: 'https:', hostname: HOST, path, query: {}, headers: { host: HOST, ...headers } };
}

/** smithy reads the payload hash from this header; kept out of the URL and the signature, as botocore presigns. */
const PRESIGN_UNSIGNED_PAYLOAD = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
const PAYLOAD_HEADER = new Set(['x-amz-content-sha256']);

/** Presigns over UNSIGNED-PAYLOAD and `signedHeaders` (host always), which stay headers rather than query parameters. */
async function presign(method: string, path: string, signedHeaders: Record<string, string> = {}): Promise<string> {
  const names = new Set([...PAYLOAD_HEADER, ...Object.keys(signedHeaders)]);
  const signed = await smithySigner(KEYS, 'us-east-1').presign(smithyRequest(method, path, { ...PRESIGN_UNSIGNED_PAYLOAD, ...signedHeaders }), {
    signingDate: new Date(NOW),
    expiresIn: 900,
    unsignableHeaders: PAYLOAD_HEADER,
    unhoistableHeaders: names,
  });
  return buildQuery((signed.query ?? {}) as Record<string, string>);
}

/** A presigned request signed over `host` only (as boto3's generate_presigned_url), sent with `sent` headers. */
async function presigned(method: string, path: string, sent: Record<string, string> = {}): Promise<SignableRequest> {
  return { method, rawPath: path, rawQuery: await presign(method, path), headers: new Headers({ host: HOST, ...sent }) };
}

/**
 * A header-signed request that signed `signed` (plus host, x-amz-date and x-amz-content-sha256, as every SDK
 * does) and is sent with `added` on top, as someone replaying a captured request would send it.
 */
async function headerSigned(method: string, path: string, signed: Record<string, string>, added: Record<string, string> = {}): Promise<SignableRequest> {
  const out = await smithySigner(KEYS, 'us-east-1').sign(smithyRequest(method, path, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...signed }), {
    signingDate: new Date(NOW),
  });
  return { method, rawPath: path, rawQuery: '', headers: new Headers({ ...out.headers, ...added }) };
}

async function outcome(request: SignableRequest, options = {}): Promise<{ code: string; unsigned?: string }> {
  const info = parseSignedRequest(request.headers, request.rawQuery);
  if (info === undefined) throw new Error('request is anonymous');
  try {
    await verifySignature(request, info, KEYS.secretAccessKey, NOW + 1000, options);
    return { code: 'accepted' };
  } catch (error) {
    if (!(error instanceof S3Error)) throw error;
    return error.detail.HeadersNotSigned === undefined ? { code: error.code } : { code: error.code, unsigned: error.detail.HeadersNotSigned };
  }
}

describe('GIVEN a URL presigned over host only', () => {
  it('WHEN sent as signed THEN it is accepted', async () => {
    expect(await outcome(await presigned('PUT', '/pub/uploads/x'))).toEqual({ code: 'accepted' });
  });

  it('WHEN an unsigned x-amz-copy-source is added THEN it is refused before anything else, naming the header', async () => {
    const request = await presigned('PUT', '/pub/uploads/x', { 'x-amz-copy-source': '/priv/secret/s.txt', 'content-length': '0' });
    expect(await outcome(request)).toEqual({ code: 'AccessDenied', unsigned: 'x-amz-copy-source' });
  });

  it.each([
    ['x-amz-acl', 'public-read'],
    ['x-amz-meta-owner', 'mallory'],
    ['x-amz-tagging', 'k=v'],
    ['x-amz-website-redirect-location', 'https://evil.example/'],
    ['x-amz-storage-class', 'GLACIER'],
    ['x-amz-server-side-encryption', 'AES256'],
    ['x-amz-security-token', 'a-token'],
    ['x-amz-date', '20260601T120000Z'],
    ['x-amz-checksum-crc32', 'AAAAAA=='],
    ['content-md5', '1B2M2Y8AsgTpgAmY7PhCfg=='],
  ])('WHEN an unsigned %s is added THEN it is refused', async (name, value) => {
    expect(await outcome(await presigned('PUT', '/pub/uploads/x', { [name]: value }))).toEqual({ code: 'AccessDenied', unsigned: name });
  });

  it('WHEN several are added THEN all are named, comma-separated as S3 does', async () => {
    const request = await presigned('PUT', '/pub/uploads/x', { 'x-amz-meta-a': '1', 'x-amz-acl': 'public-read', 'X-Amz-Meta-B': '2' });
    const result = await outcome(request);
    expect(result.code).toBe('AccessDenied');
    expect(result.unsigned?.split(', ').sort()).toEqual(['x-amz-acl', 'x-amz-meta-a', 'x-amz-meta-b']);
  });

  it.each([
    ['content-type', 'text/html'],
    ['content-disposition', 'attachment'],
    ['cache-control', 'no-cache'],
    ['range', 'bytes=0-9'],
    ['if-match', '"etag"'],
    ['if-none-match', '*'],
    ['expect', '100-continue'],
    ['x-amzn-trace-id', 'Root=1-00000000-000000000000000000000000'],
    ['x-forwarded-for', '203.0.113.7'],
  ])('WHEN %s is sent unsigned THEN it is accepted, as on S3', async (name, value) => {
    expect(await outcome(await presigned('PUT', '/pub/uploads/x', { [name]: value }))).toEqual({ code: 'accepted' });
  });

  it('WHEN an unsigned x-amz-content-sha256: UNSIGNED-PAYLOAD is added THEN it is accepted: S3 reads it into the payload line', async () => {
    expect(await outcome(await presigned('GET', '/pub/k', { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }))).toEqual({ code: 'accepted' });
  });

  it('WHEN an unsigned x-amz-content-sha256 holds another value THEN the signature does not match', async () => {
    expect(await outcome(await presigned('GET', '/pub/k', { 'x-amz-content-sha256': EMPTY_SHA256 }))).toEqual({ code: 'SignatureDoesNotMatch' });
    expect(await outcome(await presigned('PUT', '/pub/k', { 'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' }))).toEqual({
      code: 'SignatureDoesNotMatch',
    });
  });

  it('WHEN the header is signed with its value THEN it is accepted', async () => {
    const rawQuery = await presign('PUT', '/pub/uploads/x', { 'x-amz-acl': 'private' });
    const request: SignableRequest = { method: 'PUT', rawPath: '/pub/uploads/x', rawQuery, headers: new Headers({ host: HOST, 'x-amz-acl': 'private' }) };
    expect(parseSignedRequest(request.headers, request.rawQuery)?.signedHeaders).toEqual(['host', 'x-amz-acl']);
    expect(await outcome(request)).toEqual({ code: 'accepted' });
  });
});

describe('GIVEN a header-signed request that signed host;x-amz-content-sha256;x-amz-date', () => {
  it('WHEN replayed as signed THEN it is accepted', async () => {
    const request = await headerSigned('PUT', '/pub/uploads/x', {});
    expect(parseSignedRequest(request.headers, '')?.signedHeaders).toEqual(['host', 'x-amz-content-sha256', 'x-amz-date']);
    expect(await outcome(request)).toEqual({ code: 'accepted' });
  });

  it('WHEN replayed with an added x-amz-copy-source THEN it is refused, naming the header', async () => {
    const request = await headerSigned('PUT', '/pub/uploads/x', {}, { 'x-amz-copy-source': '/priv/secret/s.txt' });
    expect(await outcome(request)).toEqual({ code: 'AccessDenied', unsigned: 'x-amz-copy-source' });
  });

  it('WHEN replayed with an added x-amz-meta-* or x-amz-acl THEN it is refused', async () => {
    expect(await outcome(await headerSigned('PUT', '/pub/uploads/x', {}, { 'x-amz-meta-n': 'v' }))).toEqual({ code: 'AccessDenied', unsigned: 'x-amz-meta-n' });
    expect(await outcome(await headerSigned('PUT', '/pub/uploads/x', {}, { 'x-amz-acl': 'public-read' }))).toEqual({ code: 'AccessDenied', unsigned: 'x-amz-acl' });
  });

  it('WHEN the x-amz-* headers it carries are all signed THEN it is accepted', async () => {
    const request = await headerSigned('PUT', '/pub/uploads/x', { 'x-amz-meta-n': 'v', 'x-amz-acl': 'private', 'x-amz-security-token': 'tok' });
    expect(await outcome(request)).toEqual({ code: 'accepted' });
  });

  it('WHEN x-amz-content-sha256 is left out of SignedHeaders THEN it is still covered as the payload line and accepted', async () => {
    const signer = smithySigner(KEYS, 'us-east-1');
    const out = await signer.sign(smithyRequest('GET', '/pub/k', { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }), {
      signingDate: new Date(NOW),
      unsignableHeaders: new Set(['x-amz-content-sha256']),
    });
    const request: SignableRequest = { method: 'GET', rawPath: '/pub/k', rawQuery: '', headers: new Headers(out.headers) };
    expect(parseSignedRequest(request.headers, '')?.signedHeaders).toEqual(['host', 'x-amz-date']);
    expect(await outcome(request)).toEqual({ code: 'accepted' });
  });

  it('WHEN the service hashes the body itself (STS) THEN an unsigned x-amz-content-sha256 is one more unsigned header', async () => {
    const { headers } = await headerSigned('POST', '/', {});
    const info = parseSignedRequest(headers, '')!;
    const names = info.signedHeaders.filter((name) => name !== 'x-amz-content-sha256');
    expect(unsignedHeaders(headers, names, false)).toEqual(['x-amz-content-sha256']);
    expect(unsignedHeaders(headers, names, true)).toEqual([]);
  });
});
