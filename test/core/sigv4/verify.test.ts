import { S3Error } from '../../../functions/core/errors';
import { createHmac } from 'node:crypto';
import { parseSignedRequest, presignUrl, signRequest, verifySignature, type SignableRequest } from '../../../functions/core/sigv4';
import { hmac, toHex } from '../../../functions/core/bytes';
import { seededRandom } from '../../support/random';

/** The example key and requests of the S3 SigV4 documentation (sig-v4-header-based-auth, query-string-auth). */
const AKID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const SIGNED_AT = Date.UTC(2013, 4, 24);
const MINUTE = 60_000;

function documentedGet(extra: Record<string, string> = {}): SignableRequest & { headers: Headers } {
  return {
    method: 'GET',
    rawPath: '/test.txt',
    rawQuery: '',
    headers: new Headers({
      host: 'examplebucket.s3.amazonaws.com',
      range: 'bytes=0-9',
      'x-amz-content-sha256': EMPTY_SHA256,
      'x-amz-date': '20130524T000000Z',
      authorization:
        `AWS4-HMAC-SHA256 Credential=${AKID}/20130524/us-east-1/s3/aws4_request,` +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
      ...extra,
    }),
  };
}

function documentedPresignedGet(): SignableRequest {
  return {
    method: 'GET',
    rawPath: '/test.txt',
    rawQuery:
      'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
      '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
      '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    headers: new Headers({ host: 'examplebucket.s3.amazonaws.com' }),
  };
}

async function verify(request: SignableRequest, now: number, secret = SECRET) {
  const info = parseSignedRequest(request.headers, request.rawQuery);
  if (info === undefined) throw new Error('request is anonymous');
  return verifySignature(request, info, secret, now);
}

async function rejection(promise: Promise<unknown>): Promise<S3Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof S3Error) return error;
    throw error;
  }
  throw new Error('expected an S3Error');
}

describe('verifySignature with the AWS documentation examples', () => {
  it('accepts the header-signed GET and returns the seed for chunk signatures', async () => {
    const verified = await verify(documentedGet(), SIGNED_AT);
    expect(verified.signature).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    expect(verified.scope).toBe('20130524/us-east-1/s3/aws4_request');
    expect(verified.amzDate).toBe('20130524T000000Z');
    // The seed key is the scope's signing key, derived here independently with node:crypto.
    const derived = ['20130524', 'us-east-1', 's3', 'aws4_request'].reduce<Buffer>((key, part) => createHmac('sha256', key).update(part).digest(), Buffer.from(`AWS4${SECRET}`));
    expect(toHex(hmac(verified.signingKey, 'chunk'))).toBe(createHmac('sha256', derived).update('chunk').digest('hex'));
  });

  it('accepts the presigned GET', async () => {
    await expect(verify(documentedPresignedGet(), SIGNED_AT + 60 * MINUTE)).resolves.toBeDefined();
  });
});

describe('request time, header auth', () => {
  it('accepts a request up to 15 minutes off the clock either way', async () => {
    await expect(verify(documentedGet(), SIGNED_AT + 15 * MINUTE)).resolves.toBeDefined();
    await expect(verify(documentedGet(), SIGNED_AT - 15 * MINUTE)).resolves.toBeDefined();
  });

  it('refuses a request more than 15 minutes old or ahead with RequestTimeTooSkewed', async () => {
    for (const now of [SIGNED_AT + 15 * MINUTE + 1000, SIGNED_AT - 15 * MINUTE - 1000]) {
      const error = await rejection(verify(documentedGet(), now));
      expect(error.code).toBe('RequestTimeTooSkewed');
      expect(error.status).toBe(403);
      expect(error.detail['RequestTime']).toBe('20130524T000000Z');
    }
  });
});

describe('request time, presigned URL', () => {
  it('accepts the URL until X-Amz-Date + X-Amz-Expires', async () => {
    await expect(verify(documentedPresignedGet(), SIGNED_AT + 86400_000)).resolves.toBeDefined();
  });

  it('refuses a presigned URL past its expiry with AccessDenied "Request has expired"', async () => {
    const error = await rejection(verify(documentedPresignedGet(), SIGNED_AT + 86400_000 + 1000));
    expect(error.code).toBe('AccessDenied');
    expect(error.message).toBe('Request has expired');
  });

  it('refuses a presigned URL dated more than 15 minutes ahead with AccessDenied "Request is not valid yet"', async () => {
    const error = await rejection(verify(documentedPresignedGet(), SIGNED_AT - 16 * MINUTE));
    expect(error.code).toBe('AccessDenied');
    expect(error.message).toBe('Request is not valid yet');
  });

  it('accepts a presigned URL dated a little ahead (client clock skew)', async () => {
    await expect(verify(documentedPresignedGet(), SIGNED_AT - 10 * MINUTE)).resolves.toBeDefined();
  });
});

describe('payload hash', () => {
  it('refuses header auth without x-amz-content-sha256 with InvalidRequest, as S3 does', async () => {
    const request = documentedGet();
    request.headers.delete('x-amz-content-sha256');
    const info = parseSignedRequest(request.headers, '')!;
    const error = await rejection(verifySignature(request, { ...info, signedHeaders: ['host', 'range', 'x-amz-date'] }, SECRET, SIGNED_AT));
    expect(error.code).toBe('InvalidRequest');
    expect(error.message).toBe('Missing required header for this request: x-amz-content-sha256');
  });
});

describe('signature mismatch', () => {
  it('refuses a wrong secret with SignatureDoesNotMatch, explaining without revealing the expected signature or secret', async () => {
    const error = await rejection(verify(documentedGet(), SIGNED_AT, 'another-secret'));
    expect(error.code).toBe('SignatureDoesNotMatch');
    expect(error.status).toBe(403);
    expect(error.detail['StringToSign']).toBe(
      'AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n' +
        '7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972',
    );
    expect(error.detail['CanonicalRequest']).toContain('GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\n');
    // What the gateway computed under the wrong secret: the same request signed by the gateway's signer.
    const resigned = await signRequest({
      method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/test.txt', headers: { range: 'bytes=0-9' },
      payloadHash: EMPTY_SHA256, credentials: { accessKeyId: AKID, secretAccessKey: 'another-secret' },
      region: 'us-east-1', service: 's3', now: SIGNED_AT,
    });
    const expectedSignature = /Signature=([0-9a-f]{64})/.exec(resigned['authorization']!)![1]!;
    const everything = JSON.stringify({ message: error.message, detail: error.detail });
    expect(everything).not.toContain('another-secret');
    expect(everything).not.toContain(expectedSignature);
  });

  it('refuses a request missing a header it signed with SignatureDoesNotMatch naming the header', async () => {
    const request = documentedGet();
    request.headers.delete('range');
    const error = await rejection(verify(request, SIGNED_AT));
    expect(error.code).toBe('SignatureDoesNotMatch');
    expect(error.message).toContain('"range"');
  });

  it('refuses a tampered signed header', async () => {
    const error = await rejection(verify(documentedGet({ range: 'bytes=0-10' }), SIGNED_AT));
    expect(error.code).toBe('SignatureDoesNotMatch');
  });

  it('ignores unsigned headers', async () => {
    await expect(verify(documentedGet({ 'user-agent': 'curl', 'x-forwarded-for': '1.2.3.4' }), SIGNED_AT)).resolves.toBeDefined();
  });
});

describe('signRequest and presignUrl produce the documented signatures', () => {
  const credentials = { accessKeyId: AKID, secretAccessKey: SECRET };

  it('signs the documented GET, leaving a default port out of the host', async () => {
    const headers = await signRequest({
      method: 'GET', url: 'https://examplebucket.s3.amazonaws.com:443/test.txt', headers: { Range: 'bytes=0-9' },
      payloadHash: EMPTY_SHA256, credentials, region: 'us-east-1', service: 's3', now: SIGNED_AT,
    });
    expect(headers).toEqual({
      host: 'examplebucket.s3.amazonaws.com',
      range: 'bytes=0-9',
      'x-amz-date': '20130524T000000Z',
      'x-amz-content-sha256': EMPTY_SHA256,
      authorization:
        `AWS4-HMAC-SHA256 Credential=${AKID}/20130524/us-east-1/s3/aws4_request, ` +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    });
  });

  it('presigns the documented GET', async () => {
    const url = await presignUrl({
      method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/test.txt', credentials,
      region: 'us-east-1', service: 's3', now: SIGNED_AT, expiresSeconds: 86400,
    });
    expect(url).toBe(`https://examplebucket.s3.amazonaws.com/test.txt?${documentedPresignedGet().rawQuery}`);
  });

  it('keeps a non-default port in the host header', async () => {
    const headers = await signRequest({
      method: 'GET', url: 'http://localhost:4568/b/k', headers: {}, payloadHash: EMPTY_SHA256, credentials,
      region: 'us-east-1', service: 's3', now: SIGNED_AT,
    });
    expect(headers['host']).toBe('localhost:4568');
  });

  it('refuses an expiry outside 1..604800 seconds or a relative URL as a caller mistake', async () => {
    const base = { method: 'GET', url: 'https://h/b/k', credentials, region: 'us-east-1', service: 's3', now: SIGNED_AT };
    await expect(presignUrl({ ...base, expiresSeconds: 604801 })).rejects.toThrow(TypeError);
    await expect(presignUrl({ ...base, expiresSeconds: 0 })).rejects.toThrow(TypeError);
    await expect(presignUrl({ ...base, url: '/b/k', expiresSeconds: 60 })).rejects.toThrow(TypeError);
  });
});

describe('changed requests', () => {
  /**
   * Whether the change from `before` to `after` in `field` leaves what was signed as it was: whitespace
   * HTTP strips around a value or SigV4 allows in Authorization, an empty query component, or the access
   * key id (which picks the secret, identity.ts's part, and is not itself signed).
   */
  function unsigned(field: string, before: string, after: string): boolean {
    if (field === 'authorization') {
      const norm = (v: string): string => v.replace(/\s+/g, '').replace(/Credential=[^/]*\//, 'Credential=/');
      return norm(before) === norm(after);
    }
    if (field === 'rawQuery') {
      const norm = (v: string): string => v.split('&').filter(Boolean).join('&').replace(/X-Amz-Credential=[^&%]*%2F/, 'X-Amz-Credential=%2F');
      return norm(before) === norm(after);
    }
    return field !== 'method' && field !== 'rawPath' && before.trim() === after.trim();
  }

  it('GIVEN 3,000 one-character changes to signed requests THEN none is accepted unless it left what was signed as it was, and every refusal is an S3 error', async () => {
    const random = seededRandom(11);
    const characters = 'aA0=,;/ %.-_~&?\tz9';
    const faults: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const original = random() < 0.5 ? documentedGet() : documentedPresignedGet();
      const fields: Record<string, string> = { method: original.method, rawPath: original.rawPath, rawQuery: original.rawQuery };
      original.headers.forEach((value, name) => (fields[name] = value));
      const names = Object.keys(fields);
      const field = names[Math.floor(random() * names.length)];
      const before = fields[field];
      const at = Math.floor(random() * (before.length + 1));
      const c = characters[Math.floor(random() * characters.length)];
      const after = [before.slice(0, at) + c + before.slice(at + 1), before.slice(0, at) + before.slice(at + 1), before.slice(0, at) + c + before.slice(at)][Math.floor(random() * 3)];
      if (after === before) continue;
      const headers = new Headers();
      for (const [name, value] of Object.entries(fields)) if (!['method', 'rawPath', 'rawQuery'].includes(name)) headers.set(name, name === field ? after.trim() : value);
      const changed = { ...fields, [field]: after };
      const request: SignableRequest = { method: changed.method, rawPath: changed.rawPath, rawQuery: changed.rawQuery, headers };
      try {
        const info = parseSignedRequest(headers, request.rawQuery);
        if (info === undefined) continue; // now anonymous: the signature's absence is authorization's business
        await verifySignature(request, info, SECRET, SIGNED_AT);
        if (!unsigned(field, before, after)) faults.push(`accepted ${field} ${JSON.stringify(after)}`);
      } catch (err) {
        if (!(err instanceof S3Error)) faults.push(`${String(err)} for ${field} ${JSON.stringify(after)}`);
      }
    }
    expect(faults).toEqual([]);
  });
});
