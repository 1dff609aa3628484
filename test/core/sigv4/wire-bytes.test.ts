/**
 * Header values are signed as the bytes on the wire. Every runtime hands the core a header value as one
 * character per byte received (`x-amz-meta-n: café` sent as Latin-1 is `caf\u00e9`, four characters), and sends
 * the gateway's own header values the same way; the canonical request is hashed over those bytes, both when a
 * client's signature is verified and when the gateway signs a backend request. The reference here is an
 * independent signer on node:crypto that hashes exactly the bytes it sends.
 */
import { createHash, createHmac } from 'node:crypto';
import { S3Error } from '../../../functions/core/errors';
import { parseSignedRequest, signRequest, verifySignature, type SignableRequest } from '../../../functions/core/sigv4';
import { wireBytes } from '../../../functions/core/bytes';

const AKID = 'AKIDWIREBYTES0000000';
const SECRET = 'wire/bytes/secret/000000000000000000000';
const NOW = Date.UTC(2026, 5, 1, 12);
const AMZ_DATE = '20260601T120000Z';
const SCOPE = '20260601/us-east-1/s3/aws4_request';
/** `café` as Node hands over the four bytes 63 61 66 E9. */
const CAFE_LATIN1 = 'caf\u00e9';

/** A header-signed request's Authorization value, the canonical request hashed as `encoding` bytes. */
function authorization(method: string, path: string, headers: Record<string, string>, encoding: BufferEncoding): string {
  const names = Object.keys(headers).sort();
  const canonical = [method, path, '', ...names.map((n) => `${n}:${headers[n]}`), '', names.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', AMZ_DATE, SCOPE, createHash('sha256').update(Buffer.from(canonical, encoding)).digest('hex')].join('\n');
  const key = ['20260601', 'us-east-1', 's3', 'aws4_request'].reduce<Buffer>((k, part) => createHmac('sha256', k).update(part).digest(), Buffer.from(`AWS4${SECRET}`));
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${AKID}/${SCOPE}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
}

function putWithMeta(value: string, signedAs: BufferEncoding): SignableRequest {
  const headers = { host: 'gw.example.com', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-date': AMZ_DATE, 'x-amz-meta-n': value };
  return { method: 'PUT', rawPath: '/b/k', rawQuery: '', headers: new Headers({ ...headers, authorization: authorization('PUT', '/b/k', headers, signedAs) }) };
}

async function outcome(request: SignableRequest): Promise<string> {
  try {
    await verifySignature(request, parseSignedRequest(request.headers, '')!, SECRET, NOW);
    return 'accepted';
  } catch (error) {
    if (error instanceof S3Error) return error.code;
    throw error;
  }
}

describe('wireBytes', () => {
  it('gives each character up to U+00FF as its one byte', () => {
    expect([...wireBytes(CAFE_LATIN1)]).toEqual([0x63, 0x61, 0x66, 0xe9]);
    expect([...wireBytes('caf\u00c3\u00a9')]).toEqual([0x63, 0x61, 0x66, 0xc3, 0xa9]);
  });

  it('gives a character beyond U+00FF, which cannot be a byte, its UTF-8', () => {
    expect([...wireBytes('\u20ac\u00e9')]).toEqual([0xe2, 0x82, 0xac, 0xe9]);
    expect([...wireBytes('\u{1f600}')]).toEqual([0xf0, 0x9f, 0x98, 0x80]);
  });
});

describe('GIVEN x-amz-meta-n: café sent as the Latin-1 byte 0xE9', () => {
  it('WHEN the client signed the bytes it sent THEN the signature verifies', async () => {
    expect(await outcome(putWithMeta(CAFE_LATIN1, 'latin1'))).toBe('accepted');
  });

  it('WHEN the client signed the UTF-8 of the text but sent Latin-1 (what SDKs do) THEN it is refused, as S3 refuses it', async () => {
    expect(await outcome(putWithMeta(CAFE_LATIN1, 'utf8'))).toBe('SignatureDoesNotMatch');
  });

  it('WHEN the value arrived as the UTF-8 bytes C3 A9 THEN those bytes are what verifies', async () => {
    const asReceived = Buffer.from('café', 'utf8').toString('latin1');
    expect(await outcome(putWithMeta(asReceived, 'latin1'))).toBe('accepted');
  });
});

describe('GIVEN the gateway signs a backend request carrying x-amz-meta-n: café as one byte per character', () => {
  it('WHEN a verifier hashes the bytes that will be sent THEN the signature is the one it computes', async () => {
    const headers = await signRequest({
      method: 'PUT', url: 'http://127.0.0.1:7480/b/k', headers: { 'x-amz-meta-n': CAFE_LATIN1 }, payloadHash: 'UNSIGNED-PAYLOAD',
      credentials: { accessKeyId: AKID, secretAccessKey: SECRET }, region: 'us-east-1', service: 's3', now: NOW,
    });
    const { authorization: signed, ...sent } = headers;
    expect(signed).toBe(authorization('PUT', '/b/k', sent, 'latin1'));
    expect(signed).not.toBe(authorization('PUT', '/b/k', sent, 'utf8'));
  });
});
