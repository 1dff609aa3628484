import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutBucketPolicyCommand,
  PutBucketRequestPaymentCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { jsClient, type Keys } from '../support/clients';
import { ALL_ACTIONS, bucketToml, credentialToml, everywhere, rgwOptions, s3Options } from '../support/config-toml';
import { startGateway, TRANSPORT_RUNTIMES, type RunningGateway, type RuntimeName } from '../support/gateway';
import { rawRequest } from '../support/raw-request';
import { startRecordingHop, type RecordedRequest, type RecordingHop } from '../support/recording-hop';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import { ADMIN, codeOf } from './fixtures';

/**
 * Who pays for a requester-pays bucket is the operator's choice (`request_payer`, docs/configuration.md),
 * never a client's. On Ceph RGW: `paid-store` is requester-pays and the gateway reaches it as an RGW user
 * other than its owner, granted by a bucket policy, so RGW refuses the gateway's reads that do not accept
 * the charges (RGW 16 checks reads only). A recording hop in front of RGW shows what reached it. With
 * `request_payer = "requester"` every GET, PUT and listing carries the header, signed; a client's own
 * `x-amz-request-payer` (the JS SDK's `RequestPayer`) never reaches RGW, on a bucket whose owner pays and on
 * the same requester-pays bucket configured without the option, whose reads RGW then refuses.
 */
const PAYER = 'x-amz-request-payer';
/** The RGW user the gateway reaches `paid-store` as: not its owner. */
const REQUESTER: Keys = { accessKeyId: 'REQUESTERKEY00000000', secretAccessKey: 'requester/secret/key/0000000000000000000' };

let rgw: Rgw;
let hop: RecordingHop;

beforeAll(async () => {
  rgw = await startRgw();
  await rgw.admin(['user', 'create', '--uid', 'requester', '--display-name', 'requester', '--access-key', REQUESTER.accessKeyId, '--secret', REQUESTER.secretAccessKey]);
  await Promise.all([createBucket(rgw, 'paid-store'), createBucket(rgw, 'owned-store')]);
  const owner = rgwS3Client(rgw);
  try {
    const policy = {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { AWS: ['arn:aws:iam:::user/requester'] }, Action: ['s3:*'], Resource: ['arn:aws:s3:::paid-store', 'arn:aws:s3:::paid-store/*'] }],
    };
    await owner.send(new PutBucketPolicyCommand({ Bucket: 'paid-store', Policy: JSON.stringify(policy) }));
    await owner.send(new PutBucketRequestPaymentCommand({ Bucket: 'paid-store', RequestPaymentConfiguration: { Payer: 'Requester' } }));
    await owner.send(new PutObjectCommand({ Bucket: 'paid-store', Key: 'seed.txt', Body: 'seed' }));
  } finally {
    owner.destroy();
  }
  hop = await startRecordingHop(rgw.endpoint);
}, 180_000);

afterAll(async () => {
  await Promise.all([hop?.stop(), rgw?.stop()]);
});

function config(): string {
  const viaHop = { endpoint: hop.endpoint, accessKeyId: rgw.accessKeyId };
  return [
    bucketToml({ name: 'paid', backend_type: 's3' }, s3Options(hop.endpoint, 'paid-store', REQUESTER, { request_payer: 'requester' })),
    bucketToml({ name: 'unpaid', backend_type: 's3', anonymous_access: true }, s3Options(hop.endpoint, 'paid-store', REQUESTER)),
    bucketToml({ name: 'owned', backend_type: 's3' }, rgwOptions(viaHop, 'owned-store')),
    credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere(ALL_ACTIONS)]),
  ].join('\n');
}

/** What reached RGW while `traffic` ran. */
async function atBackend(traffic: () => Promise<unknown>): Promise<RecordedRequest[]> {
  const from = hop.requests.length;
  await traffic();
  return hop.requests.slice(from);
}

function signedHeaders(request: RecordedRequest): string[] {
  return /SignedHeaders=([^,]+)/.exec(String(request.headers.authorization))?.[1].split(';') ?? [];
}

/** A PUT, a GET of it and a listing of its folder, each asking that the requester pay when `requesterPays`. */
async function putGetList(client: S3Client, bucket: string, prefix: string, requesterPays: boolean): Promise<{ body: string; listed: string[] }> {
  const payer = requesterPays ? { RequestPayer: 'requester' as const } : {};
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/a.txt`, Body: 'paid for', ...payer }));
  const body = await (await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/a.txt`, ...payer }))).Body!.transformToString();
  const listed = (await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/`, ...payer }))).Contents?.map((c) => c.Key!) ?? [];
  return { body, listed };
}

describe.each(TRANSPORT_RUNTIMES)('x-amz-request-payer is the operator\'s to send (%s runtime)', (runtime: RuntimeName) => {
  let gw: RunningGateway;
  let client: S3Client;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config(), env: { RGW_SECRET: rgw.secretAccessKey } });
    client = jsClient(gw.endpoint, ADMIN);
  }, 60_000);

  afterAll(async () => {
    client?.destroy();
    await gw?.stop();
  });

  it('GIVEN request_payer = "requester" WHEN a client PUTs, GETs and lists without asking THEN RGW serves the gateway, every request carrying the header, signed', async () => {
    const prefix = `payer-${runtime}`;
    const sent = await atBackend(async () => {
      expect(await putGetList(client, 'paid', prefix, false)).toEqual({ body: 'paid for', listed: [`${prefix}/a.txt`] });
    });
    expect(sent.map((r) => r.method).sort()).toEqual(['GET', 'GET', 'PUT']);
    for (const request of sent) {
      expect(request.headers[PAYER]).toBe('requester');
      expect(signedHeaders(request)).toContain(PAYER);
    }
  });

  it('GIVEN a bucket whose owner pays WHEN a client asks to pay on a PUT, a GET and a listing THEN each is served and RGW never sees the header', async () => {
    const prefix = `owner-${runtime}`;
    const sent = await atBackend(async () => {
      expect(await putGetList(client, 'owned', prefix, true)).toEqual({ body: 'paid for', listed: [`${prefix}/a.txt`] });
    });
    expect(sent.map((r) => r.method).sort()).toEqual(['GET', 'GET', 'PUT']);
    for (const request of sent) expect(request.headers).not.toHaveProperty(PAYER);
  });

  it('GIVEN the requester-pays bucket without request_payer WHEN a client asks to pay THEN RGW refuses the gateway\'s reads: the client\'s header never reached it', async () => {
    const payer = { RequestPayer: 'requester' as const };
    const sent = await atBackend(async () => {
      expect(await codeOf(client.send(new GetObjectCommand({ Bucket: 'unpaid', Key: 'seed.txt', ...payer })))).toBe('AccessDenied');
      expect(await codeOf(client.send(new ListObjectsV2Command({ Bucket: 'unpaid', ...payer })))).toBe('AccessDenied');
      const anonymous = await rawRequest(gw.endpoint, { method: 'GET', target: '/unpaid/seed.txt', headers: { [PAYER]: 'requester' } });
      expect(anonymous.status).toBe(403);
      // RGW 16 checks requester pays on reads only (AWS on writes too): the PUT is stored, without the header.
      expect(await codeOf(client.send(new PutObjectCommand({ Bucket: 'unpaid', Key: `refused-${runtime}.txt`, Body: 'x', ...payer })))).toBeUndefined();
    });
    expect(sent.map((r) => r.method).sort()).toEqual(['GET', 'GET', 'GET', 'PUT']);
    for (const request of sent) expect(request.headers).not.toHaveProperty(PAYER);
  });
});
