import { GetObjectAclCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import { boto3, type Keys } from '../support/clients';
import { bucketToml, credentialToml, rgwOptions } from '../support/config-toml';
import { RUNTIMES, RUNTIME_LIMITS, startGateway, type RunningGateway } from '../support/gateway';
import { Sha256, errorCode, rawRequest, type RawResponse } from '../support/raw-request';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import { signOverWireBytes } from '../support/wire-signer';
import { readText } from './fixtures';
import { exists } from './write-fixtures';

/**
 * What a signature covers decides what a request does (issue 18, findings 1-3, 7, 8), on every runtime against
 * Ceph RGW, with the backend read directly after every refusal. The uploader may read `priv/secret/` and
 * write `pub/uploads/`; `pub` is anonymous-readable. An `x-amz-*` header the signature leaves out is refused
 * (403 AccessDenied, HeadersNotSigned), a credential scoped to another service is refused (400), and a
 * header value signed as its bytes is stored as those bytes.
 */
const UPLOADER: Keys = { accessKeyId: 'UPLOADERKEY000000000', secretAccessKey: 'uploader/secret/0000000000000000000000' };
const SECRET_TEXT = 'the secret';

let rgw: Rgw;
let direct: S3Client;

beforeAll(async () => {
  rgw = await startRgw();
  await Promise.all([createBucket(rgw, 'sec-pub'), createBucket(rgw, 'sec-priv')]);
  direct = rgwS3Client(rgw);
  await direct.send(new PutObjectCommand({ Bucket: 'sec-priv', Key: 'secret/s.txt', Body: SECRET_TEXT }));
}, 120_000);

afterAll(async () => {
  direct?.destroy();
  await rgw?.stop();
});

function config(): string {
  const bucket = (name: string, backend: string, anonymous: boolean): string =>
    bucketToml({ name, backend_type: 's3', anonymous_access: anonymous }, rgwOptions(rgw, backend));
  return [
    bucket('pub', 'sec-pub', true),
    bucket('priv', 'sec-priv', false),
    credentialToml(UPLOADER, { principal_name: 'uploader' }, [
      { bucket: 'priv', prefixes: ['secret/'], actions: ['get_object', 'head_object'] },
      { bucket: 'pub', prefixes: ['uploads/'], actions: ['put_object'] },
    ]),
  ].join('\n');
}

/** Path and query of a URL exactly as written (no normalization). */
function target(url: string): string {
  return url.slice(url.indexOf('/', url.indexOf('//') + 2));
}

function element(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
}

function refusal(res: RawResponse): [number, string | undefined, string | undefined] {
  return [res.status, errorCode(res.body), element(res.body, 'HeadersNotSigned')];
}

function smithyRequest(endpoint: string, method: string, path: string, headers: Record<string, string>): HttpRequest {
  const url = new URL(endpoint);
  return { method, protocol: 'http:', hostname: url.hostname, port: Number(url.port), path, query: {}, headers: { host: url.host, ...headers } };
}

function signer(service: string): SignatureV4 {
  return new SignatureV4({ credentials: UPLOADER, region: 'us-east-1', service, sha256: Sha256, uriEscapePath: false, applyChecksum: false });
}

describe.each(RUNTIMES)('What a signature covers (%s runtime)', (runtime) => {
  let gw: RunningGateway;
  /** boto3's presigned PUT URLs for pub/uploads/<name>-<runtime>, by name. */
  let presigned: Record<string, string>;
  const key = (name: string): string => `uploads/${name}-${runtime}`;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config(), env: { RGW_SECRET: rgw.secretAccessKey } });
    const names = ['copy', 'acl', 'x-amz-meta-owner', 'x-amz-tagging', 'x-amz-website-redirect-location'];
    presigned = (await boto3('boto3-new', gw.endpoint, UPLOADER, `
s3 = boto3.client('s3', endpoint_url=s3.meta.endpoint_url, region_name='us-east-1', config=Config(signature_version='s3v4', s3={'addressing_style': 'path'}))
result = {n: s3.generate_presigned_url('put_object', Params={'Bucket': 'pub', 'Key': 'uploads/' + n + '-${runtime}'}, ExpiresIn=600) for n in ${JSON.stringify(names)}}`)) as Record<string, string>;
  }, 120_000);

  afterAll(() => gw?.stop());

  describe('GIVEN the uploader\'s presigned PUT URL (X-Amz-SignedHeaders=host)', () => {
    it('WHEN sent with an unsigned x-amz-copy-source naming a secret THEN 403 AccessDenied, nothing is copied, and the anonymous GET finds nothing', async () => {
      expect(presigned.copy).toContain('X-Amz-SignedHeaders=host&');
      const res = await rawRequest(gw.endpoint, { method: 'PUT', target: target(presigned.copy!), headers: { 'x-amz-copy-source': '/priv/secret/s.txt', 'content-length': '0' } });
      expect(refusal(res)).toEqual([403, 'AccessDenied', 'x-amz-copy-source']);
      expect(element(res.body, 'Message')).toBe('There were headers present in the request which were not signed');
      expect(await exists(direct, 'sec-pub', key('copy'))).toBe(false);
      const anonymous = await fetch(`${gw.endpoint}/pub/${key('copy')}`);
      expect(anonymous.status).toBe(404);
      expect(await anonymous.text()).not.toContain(SECRET_TEXT);
    });

    it('WHEN sent with an unsigned x-amz-acl: public-read over an existing object THEN 403, and the object and its ACL are untouched', async () => {
      await direct.send(new PutObjectCommand({ Bucket: 'sec-pub', Key: key('acl'), Body: 'original' }));
      const res = await rawRequest(gw.endpoint, { method: 'PUT', target: target(presigned.acl!), headers: { 'x-amz-acl': 'public-read' }, body: 'replaced' });
      expect(refusal(res)).toEqual([403, 'AccessDenied', 'x-amz-acl']);
      expect(await readText(direct, 'sec-pub', key('acl'))).toBe('original');
      const acl = await direct.send(new GetObjectAclCommand({ Bucket: 'sec-pub', Key: key('acl') }));
      expect(acl.Grants?.map((g) => [g.Grantee?.URI ?? g.Grantee?.ID, g.Permission])).toEqual([[acl.Owner?.ID, 'FULL_CONTROL']]);
      expect((await fetch(`${rgw.endpoint}/sec-pub/${key('acl')}`)).status).toBe(403);
    });

    it.each([
      ['x-amz-meta-owner', 'mallory'],
      ['x-amz-tagging', 'classification=public'],
      ['x-amz-website-redirect-location', '/elsewhere'],
    ])('WHEN sent with an unsigned %s THEN 403 names it and nothing is stored', async (name, value) => {
      const res = await rawRequest(gw.endpoint, { method: 'PUT', target: target(presigned[name]!), headers: { [name]: value }, body: 'data' });
      expect(refusal(res)).toEqual([403, 'AccessDenied', name]);
      expect(await exists(direct, 'sec-pub', key(name))).toBe(false);
    });
  });

  describe('GIVEN a captured header-signed PUT that signed only host;x-amz-content-sha256;x-amz-date', () => {
    it('WHEN replayed with an added x-amz-copy-source THEN 403 AccessDenied and nothing is copied', async () => {
      const path = `/pub/${key('replayed')}`;
      const signed = await signer('s3').sign(smithyRequest(gw.endpoint, 'PUT', path, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }));
      expect(signed.headers.authorization).toContain('SignedHeaders=host;x-amz-content-sha256;x-amz-date,');
      const res = await rawRequest(gw.endpoint, { method: 'PUT', target: path, headers: { ...signed.headers, 'x-amz-copy-source': '/priv/secret/s.txt', 'content-length': '0' } });
      expect(refusal(res)).toEqual([403, 'AccessDenied', 'x-amz-copy-source']);
      expect(await exists(direct, 'sec-pub', key('replayed'))).toBe(false);
    });
  });

  describe('GIVEN a credential scoped to iam (…/us-east-1/iam/aws4_request)', () => {
    it('WHEN it signs the Authorization header of a read THEN 400 AuthorizationHeaderMalformed names the service', async () => {
      const signed = await signer('iam').sign(smithyRequest(gw.endpoint, 'GET', '/priv/secret/s.txt', { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }));
      const res = await rawRequest(gw.endpoint, { method: 'GET', target: '/priv/secret/s.txt', headers: signed.headers });
      expect([res.status, errorCode(res.body)]).toEqual([400, 'AuthorizationHeaderMalformed']);
      expect(element(res.body, 'Message')).toBe('The authorization header is malformed; incorrect service &quot;iam&quot;. This endpoint belongs to &quot;s3&quot;.');
      expect(res.body).not.toContain(SECRET_TEXT);
    });

    it('WHEN it presigns a URL THEN 400 AuthorizationQueryParametersError', async () => {
      const url = await signer('iam').presign(smithyRequest(gw.endpoint, 'GET', '/priv/secret/s.txt', {}), { expiresIn: 300 });
      const query = Object.entries(url.query ?? {}).map(([n, v]) => `${n}=${encodeURIComponent(String(v))}`).join('&');
      const res = await rawRequest(gw.endpoint, { method: 'GET', target: `/priv/secret/s.txt?${query}` });
      expect([res.status, errorCode(res.body)]).toEqual([400, 'AuthorizationQueryParametersError']);
      expect(res.body).not.toContain(SECRET_TEXT);
    });
  });

  describe.each([
    ['Latin-1', [0x63, 0x61, 0x66, 0xe9]],
    ['UTF-8', [0x63, 0x61, 0x66, 0xc3, 0xa9]],
  ])('GIVEN x-amz-meta-n: café sent as its %s bytes and signed over the bytes sent', (encoding, bytes) => {
    const name = `meta-${encoding.toLowerCase()}`;
    const path = `/pub/${key(name)}`;
    const upload = (): Promise<RawResponse> => {
      const value = Buffer.from(bytes).toString('latin1');
      const headers = signOverWireBytes(gw.endpoint, { method: 'PUT', path, headers: { 'x-amz-meta-n': value, 'content-length': '4' } }, UPLOADER);
      // A Buffer body: Node writes headers as Latin-1 then, but as UTF-8 when they share a write with a string body.
      return rawRequest(gw.endpoint, { method: 'PUT', target: path, headers, body: Buffer.from('meta') });
    };

    if (encoding === 'Latin-1' && RUNTIME_LIMITS[runtime].decodesHeaderValuesAsUtf8 === true) {
      it('WHEN uploaded THEN it is refused, the byte being lost before the gateway runs, and nothing is stored', async () => {
        const res = await upload();
        expect([res.status, errorCode(res.body)]).toEqual([403, 'SignatureDoesNotMatch']);
        expect(await exists(direct, 'sec-pub', key(name))).toBe(false);
      });
      return;
    }

    it('WHEN uploaded THEN RGW holds those bytes, and a GET through the gateway returns them', async () => {
      const res = await upload();
      expect([res.status, res.body]).toEqual([200, '']);
      const head = await direct.send(new HeadObjectCommand({ Bucket: 'sec-pub', Key: key(name) }));
      expect(metadataBytes(head.Metadata?.n)).toEqual(bytes);
      const read = await rawRequest(gw.endpoint, { method: 'GET', target: path });
      expect(read.status).toBe(200);
      expect(metadataBytes(String(read.headers['x-amz-meta-n']))).toEqual(bytes);
    });
  });
});

/**
 * The bytes of a user metadata value as RGW answers it. Like S3, RGW returns a non-ASCII value RFC 2047
 * encoded (`=?UTF-8?Q?caf=E9?=`, whatever the bytes); a plain value is its own bytes. Through a Lambda
 * response a non-ASCII value arrives as an RFC 2047 B-encoded word of its bytes (`=?UTF-8?B?Y2Fmw6k=?=`,
 * RUNTIME_LIMITS.nonAsciiHeaders).
 */
function metadataBytes(value: string | undefined): number[] {
  const word = /^=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=$/i.exec(value ?? '');
  if (word !== null) return [...Buffer.from(word[1]!, 'base64')];
  const encoded = /^=\?UTF-8\?Q\?(.*)\?=$/i.exec(value ?? '');
  if (encoded === null) return [...Buffer.from(value ?? '', 'latin1')];
  const out: number[] = [];
  const q = encoded[1]!;
  for (let i = 0; i < q.length; i++) {
    if (q[i] === '=') {
      out.push(parseInt(q.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(q[i] === '_' ? 0x20 : q.charCodeAt(i));
  }
  return out;
}
