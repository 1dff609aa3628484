import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importServiceAccountKey, signUrl, type RsaKey } from '../../../../functions/core/backends/gcs/v4-signing';
import { encodeKey } from '../../../../functions/core/keys';

/**
 * Google's V4 signed URL conformance vectors (googleapis/conformance-tests, storage/v1; see
 * test/fixtures/gcs-v4-signing/SOURCE.md), signed with their throwaway service-account key. Each vector
 * describes the client's options; `target` turns them into what our signer takes (origin, signed host,
 * path) the way Google's client libraries do.
 */
interface Vector {
  readonly description: string;
  readonly bucket: string;
  readonly object?: string;
  readonly method: string;
  readonly expiration: number;
  readonly timestamp: string;
  readonly headers?: Record<string, string>;
  readonly queryParameters?: Record<string, string>;
  readonly scheme?: string;
  readonly urlStyle?: 'PATH_STYLE' | 'VIRTUAL_HOSTED_STYLE' | 'BUCKET_BOUND_HOSTNAME';
  readonly bucketBoundHostname?: string;
  readonly hostname?: string;
  readonly clientEndpoint?: string;
  readonly emulatorHostname?: string;
  readonly universeDomain?: string;
  readonly expectedUrl: string;
  readonly expectedCanonicalRequest: string;
  readonly expectedStringToSign: string;
}

const FIXTURES = join(__dirname, '../../../fixtures/gcs-v4-signing');
const vectors = (JSON.parse(readFileSync(join(FIXTURES, 'v4_signatures.json'), 'utf8')) as { signingV4Tests: Vector[] }).signingV4Tests;
const account = JSON.parse(readFileSync(join(FIXTURES, 'test_service_account.not-a-test.json'), 'utf8')) as { client_email: string; private_key: string };

/**
 * The one vector whose URL and canonical request disagree: it requests `/test-object` on the bucket's
 * virtual host but signs the path-style `/test-bucket/test-object`. A signer that signs what it sends
 * cannot reproduce it (and the gateway addresses GCS path-style only).
 */
const INCONSISTENT = 'Universe domain with virtual hosted style';

/** Origin, signed host and path for a vector, following the precedence Google's clients use. */
function target(v: Vector): { origin: string; host: string; path: string } {
  const object = v.object === undefined ? '' : `/${encodeKey(v.object)}`;
  const endpoint = v.hostname ?? v.clientEndpoint ?? v.emulatorHostname ?? (v.universeDomain ? `storage.${v.universeDomain}` : 'storage.googleapis.com');
  const match = /^(?:(https?):\/\/)?([^/]+)$/.exec(endpoint) as RegExpExecArray;
  const scheme = v.scheme ?? match[1] ?? 'https';
  let authority = match[2];
  let path = `/${v.bucket}${object}`;
  if (v.urlStyle === 'VIRTUAL_HOSTED_STYLE') {
    authority = `${v.bucket}.${authority}`;
    path = object;
  } else if (v.urlStyle === 'BUCKET_BOUND_HOSTNAME') {
    authority = v.bucketBoundHostname as string;
    path = object;
  }
  // Google's clients sign the host name without its port (`localhost:8080` signs as `localhost`).
  return { origin: `${scheme}://${authority}`, host: authority.replace(/:\d+$/, ''), path };
}

let key: RsaKey;
beforeAll(async () => {
  key = await importServiceAccountKey(account.private_key);
});

function sign(v: Vector): ReturnType<typeof signUrl> {
  const { origin, host, path } = target(v);
  return signUrl(
    { method: v.method, origin, host, path, query: v.queryParameters, headers: v.headers, clientEmail: account.client_email, now: Date.parse(v.timestamp), expiresSeconds: v.expiration },
    key,
  );
}

describe('GCS V4 signing against Google\'s conformance vectors', () => {
  it('covers every vector in the file', () => {
    expect(vectors).toHaveLength(29);
  });

  it.each(vectors.filter((v) => v.description !== INCONSISTENT).map((v) => [v.description, v] as const))('%s', async (_, v) => {
    const signed = await sign(v);
    expect(signed.canonicalRequest).toBe(v.expectedCanonicalRequest);
    expect(signed.stringToSign).toBe(v.expectedStringToSign);
    expect(signed.url).toBe(v.expectedUrl);
  });

  it(`${INCONSISTENT}: signs the path it requests, where the vector signs another`, async () => {
    const v = vectors.find((x) => x.description === INCONSISTENT) as Vector;
    const signed = await sign(v);
    expect(signed.url.split('?')[0]).toBe(v.expectedUrl.split('?')[0]);
    expect(signed.canonicalRequest.split('\n')[1]).toBe('/test-object');
    expect(v.expectedCanonicalRequest.split('\n')[1]).toBe('/test-bucket/test-object');
  });

  it('refuses lifetimes Google would refuse', async () => {
    const base = { method: 'GET', origin: 'https://x', host: 'x', path: '/b/o', clientEmail: 'e', now: 0 };
    await expect(signUrl({ ...base, expiresSeconds: 604_801 }, key)).rejects.toThrow(RangeError);
    await expect(signUrl({ ...base, expiresSeconds: 0 }, key)).rejects.toThrow(RangeError);
  });
});
