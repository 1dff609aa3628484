import { S3Error } from '../../../functions/core/errors';
import { normalizedTo, parseSignedRequest, signRequest, verifySignature, type PlatformHeaders, type SignableRequest } from '../../../functions/core/sigv4';

/**
 * A platform that rewrites or removes a header its client signed: the verifier accepts the rewritten value only
 * where the runtime's table says the platform turns one of a few listed values into it, and nothing else.
 */
const CREDENTIALS = { accessKeyId: 'AKIDPLATFORM', secretAccessKey: 'platform/secret' };
const NOW = Date.UTC(2026, 10, 27, 12);
const EDGE_LIKE: PlatformHeaders = {
  platform: 'test platform',
  dropped: new Set(['keep-alive']),
  rewritten: new Map([['accept-encoding', normalizedTo('br, gzip', ['gzip', 'br', 'br, gzip'])]]),
};

/** A GET signed with `signed` headers, arriving with `arrived` in their place. */
async function request(signed: Record<string, string>, arrived: Record<string, string | undefined>, platformHeaders?: PlatformHeaders): Promise<SignableRequest> {
  const headers = await signRequest({
    method: 'GET',
    url: 'http://gw.example/b/k',
    headers: signed,
    payloadHash: 'UNSIGNED-PAYLOAD',
    credentials: CREDENTIALS,
    region: 'us-east-1',
    service: 's3',
    now: NOW,
  });
  const received = new Headers();
  for (const [name, value] of Object.entries({ ...headers, ...arrived })) if (value !== undefined) received.set(name, value);
  return { method: 'GET', rawPath: '/b/k', rawQuery: '', headers: received, ...(platformHeaders ? { platformHeaders } : {}) };
}

async function verify(req: SignableRequest): Promise<string> {
  const info = parseSignedRequest(req.headers, req.rawQuery);
  if (info === undefined) throw new Error('anonymous');
  try {
    await verifySignature(req, info, CREDENTIALS.secretAccessKey, NOW);
    return 'verified';
  } catch (error) {
    if (error instanceof S3Error) return `${error.code}: ${error.message}`;
    throw error;
  }
}

describe('verifySignature over headers the platform rewrote', () => {
  it('accepts a signed Accept-Encoding the platform normalized from a listed value', async () => {
    expect(await verify(await request({ 'accept-encoding': 'gzip' }, { 'accept-encoding': 'br, gzip' }, EDGE_LIKE))).toBe('verified');
    expect(await verify(await request({ 'accept-encoding': 'br, gzip' }, {}, EDGE_LIKE))).toBe('verified');
  });

  it('refuses the same request where no platform rewrites the header', async () => {
    expect(await verify(await request({ 'accept-encoding': 'gzip' }, { 'accept-encoding': 'br, gzip' }))).toMatch(/^SignatureDoesNotMatch/);
  });

  it('refuses a signature over a value the platform does not normalize to the one that arrived', async () => {
    expect(await verify(await request({ 'accept-encoding': 'deflate' }, { 'accept-encoding': 'br, gzip' }, EDGE_LIKE))).toMatch(/^SignatureDoesNotMatch/);
    // The normalization has one output: a listed value that arrived as something else is no rewrite.
    expect(await verify(await request({ 'accept-encoding': 'gzip' }, { 'accept-encoding': 'br' }, EDGE_LIKE))).toMatch(/^SignatureDoesNotMatch/);
  });

  it('refuses a request whose other signed headers changed, whatever the rewritten one holds', async () => {
    const req = await request({ 'accept-encoding': 'gzip', 'x-amz-meta-a': '1' }, { 'accept-encoding': 'br, gzip', 'x-amz-meta-a': '2' }, EDGE_LIKE);
    expect(await verify(req)).toMatch(/^SignatureDoesNotMatch/);
  });

  it('names a signed header the platform removes, so the client learns not to sign it', async () => {
    const outcome = await verify(await request({ 'keep-alive': 'timeout=5' }, { 'keep-alive': undefined }, EDGE_LIKE));
    expect(outcome).toMatch(/^SignatureDoesNotMatch: .*"keep-alive" is not present.*\(test platform\) removes or replaces keep-alive; do not sign it/);
  });

  it('names a signed header the platform replaces with its own value', async () => {
    const outcome = await verify(await request({ 'keep-alive': 'timeout=5' }, { 'keep-alive': 'timeout=60' }, EDGE_LIKE));
    expect(outcome).toMatch(/^SignatureDoesNotMatch: .*\(test platform\) removes or replaces keep-alive; do not sign it/);
  });

  it('GIVEN a signed header named constructor and a signature that does not match THEN SignatureDoesNotMatch, never a lookup of Object\'s own', async () => {
    const req = await request({ constructor: 'signed' }, { constructor: 'changed' }, EDGE_LIKE);
    expect(await verify(req)).toMatch(/^SignatureDoesNotMatch/);
    expect(await verify({ ...req, platformHeaders: undefined })).toMatch(/^SignatureDoesNotMatch/);
  });
});
