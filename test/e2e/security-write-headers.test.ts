import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectAclCommand,
  GetObjectLegalHoldCommand,
  GetObjectRetentionCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3ServiceException,
  UploadPartCommand,
  type PutObjectCommandInput,
  type S3Client,
} from '@aws-sdk/client-s3';
import { jsClient, type Keys } from '../support/clients';
import { MULTIPART_ACTIONS, bucketToml, credentialToml, s3Options } from '../support/config-toml';
import { TRANSPORT_RUNTIMES, startGateway, type RunningGateway } from '../support/gateway';
import { startRecordingHop, type RecordingHop } from '../support/recording-hop';
import { errorCode } from '../support/raw-request';
import { rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import { presignedPost } from './browsers-fixtures';
import { codeOf, copySource } from './fixtures';
import { exists } from './write-fixtures';

/**
 * Headers that change more than an object's bytes need their own action beside the write's (issue 44,
 * docs/authorization.md): an ACL or grant `put_object_acl`, tags `put_object_tagging`, retention
 * `put_object_retention`, a legal hold `put_object_legal_hold`, and a delete past GOVERNANCE retention
 * `bypass_governance_retention`. On PutObject, CopyObject, CreateMultipartUpload and the browser form, a
 * key without the action is refused with 403 AccessDenied naming it, and nothing reaches RGW (a recording
 * hop in front of it sees no request, and RGW, read directly, holds no object and no upload); a key with it
 * writes, the header reaches RGW, and RGW shows the effect where RGW 16 honours the header at all (what it
 * ignores is listed in RGW_IGNORES and docs/backends.md).
 */

/** Writes, copies (reading the source), uploads in parts and deletes, versions too: no extra action. */
const WRITER: Keys = { accessKeyId: 'WRITERKEY00000000000', secretAccessKey: 'writer/secret/key/000000000000000000000' };
/** What WRITER holds, and every action a header asks for. */
const OWNER: Keys = { accessKeyId: 'OWNERKEY000000000000', secretAccessKey: 'owner/secret/key/0000000000000000000000' };
const KEYS = { writer: WRITER, owner: OWNER } as const;
type Principal = keyof typeof KEYS;
const WRITER_ACTIONS = ['put_object', 'get_object', 'delete_object', 'delete_object_version', ...MULTIPART_ACTIONS];
const EXTRA_ACTIONS = ['put_object_acl', 'put_object_tagging', 'put_object_retention', 'put_object_legal_hold', 'bypass_governance_retention'];

/** RGW buckets, the same names as virtual buckets: object lock on (and so versioning), and an ordinary one. */
const LOCKED = 'locked';
const PLAIN = 'plain';
/** A copy's source in either bucket, stored without ACL, tags or lock. */
const SOURCE = 'source.txt';

const ALL_USERS_URI = 'http://acs.amazonaws.com/groups/global/AllUsers';
/** An `x-amz-grant-read` value: everyone may read. */
const ALL_USERS = `uri="${ALL_USERS_URI}"`;
/** Retention that ends soon, in GOVERNANCE mode: a key with bypass_governance_retention may still delete. */
const UNTIL = new Date(Math.ceil((Date.now() + 10 * 60_000) / 1000) * 1000);

type Operation = 'PutObject' | 'CopyObject' | 'CreateMultipartUpload' | 'PostObject';
const OPERATIONS: readonly Operation[] = ['PutObject', 'CopyObject', 'CreateMultipartUpload', 'PostObject'];

/** The SDK parameters the header families are sent as (PutObject's, CopyObject's and CreateMultipartUpload's alike). */
type HeaderParams = Pick<PutObjectCommandInput, 'ACL' | 'GrantRead' | 'Tagging' | 'ObjectLockMode' | 'ObjectLockRetainUntilDate' | 'ObjectLockLegalHoldStatus'>;

interface Family {
  readonly name: string;
  /** The action the header asks for, and the header (family) the refusal names. */
  readonly action: string;
  readonly refusalNames: string;
  readonly bucket: string;
  readonly params: HeaderParams;
  /** The form fields standing for the header (absent: a form has none). */
  readonly fields?: Record<string, string>;
  /** A header the backend request carries, with its value. */
  readonly sent: readonly [string, string];
  /** What RGW shows of the object, read directly: `stored` when it took the header, `absent` when not. */
  readonly effect: (direct: S3Client, key: string) => Promise<unknown>;
  readonly stored: unknown;
  readonly absent: unknown;
}

const publicRead = async (direct: S3Client, bucket: string, key: string): Promise<boolean> => {
  const acl = await direct.send(new GetObjectAclCommand({ Bucket: bucket, Key: key }));
  return (acl.Grants ?? []).some((g) => g.Grantee?.URI === ALL_USERS_URI && g.Permission === 'READ');
};

/** The value `read` resolves to, or the S3 error code it fails with. */
async function valueOrCode<T>(read: Promise<T>): Promise<T | string> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof S3ServiceException) return err.name;
    throw err;
  }
}

const FAMILIES: readonly Family[] = [
  {
    name: 'x-amz-acl',
    action: 'put_object_acl',
    refusalNames: 'x-amz-acl or x-amz-grant-*',
    bucket: PLAIN,
    params: { ACL: 'public-read' },
    fields: { acl: 'public-read' },
    sent: ['x-amz-acl', 'public-read'],
    effect: (direct, key) => publicRead(direct, PLAIN, key),
    stored: true,
    absent: false,
  },
  {
    name: 'x-amz-grant-read',
    action: 'put_object_acl',
    refusalNames: 'x-amz-acl or x-amz-grant-*',
    bucket: PLAIN,
    params: { GrantRead: ALL_USERS },
    sent: ['x-amz-grant-read', ALL_USERS],
    effect: (direct, key) => publicRead(direct, PLAIN, key),
    stored: true,
    absent: false,
  },
  {
    name: 'x-amz-tagging',
    action: 'put_object_tagging',
    refusalNames: 'x-amz-tagging',
    bucket: PLAIN,
    params: { Tagging: 'team=storage' },
    fields: { tagging: '<Tagging><TagSet><Tag><Key>team</Key><Value>storage</Value></Tag></TagSet></Tagging>' },
    sent: ['x-amz-tagging', 'team=storage'],
    effect: async (direct, key) => ((await direct.send(new GetObjectTaggingCommand({ Bucket: PLAIN, Key: key }))).TagSet ?? []).map((t) => `${t.Key}=${t.Value}`),
    stored: ['team=storage'],
    absent: [],
  },
  {
    name: 'x-amz-object-lock-mode and -retain-until-date',
    action: 'put_object_retention',
    refusalNames: 'x-amz-object-lock-mode or x-amz-object-lock-retain-until-date',
    bucket: LOCKED,
    params: { ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: UNTIL },
    fields: { 'x-amz-object-lock-mode': 'GOVERNANCE', 'x-amz-object-lock-retain-until-date': UNTIL.toISOString() },
    sent: ['x-amz-object-lock-mode', 'GOVERNANCE'],
    effect: (direct, key) =>
      valueOrCode(direct.send(new GetObjectRetentionCommand({ Bucket: LOCKED, Key: key })).then((r) => `${r.Retention?.Mode} ${r.Retention?.RetainUntilDate?.toISOString()}`)),
    stored: `GOVERNANCE ${UNTIL.toISOString()}`,
    absent: 'ObjectLockConfigurationNotFoundError',
  },
  {
    name: 'x-amz-object-lock-legal-hold',
    action: 'put_object_legal_hold',
    refusalNames: 'x-amz-object-lock-legal-hold',
    bucket: LOCKED,
    params: { ObjectLockLegalHoldStatus: 'ON' },
    fields: { 'x-amz-object-lock-legal-hold': 'ON' },
    sent: ['x-amz-object-lock-legal-hold', 'ON'],
    effect: (direct, key) => valueOrCode(direct.send(new GetObjectLegalHoldCommand({ Bucket: LOCKED, Key: key })).then((r) => r.LegalHold?.Status)),
    stored: 'ON',
    absent: 'ObjectLockConfigurationNotFoundError',
  },
];

/**
 * Headers RGW 16 takes and stores nothing of (docs/backends.md): on CopyObject, `x-amz-tagging` with the
 * REPLACE directive (it keeps the source's tags) and the lock headers; on CreateMultipartUpload, tags and
 * lock headers. ACLs and grants it stores everywhere. A form reaches RGW as a PUT with the fields' headers,
 * so it takes them all.
 */
const RGW_IGNORES: Record<Operation, readonly string[]> = {
  PutObject: [],
  CopyObject: ['x-amz-tagging', 'x-amz-object-lock-mode and -retain-until-date', 'x-amz-object-lock-legal-hold'],
  CreateMultipartUpload: ['x-amz-tagging', 'x-amz-object-lock-mode and -retain-until-date', 'x-amz-object-lock-legal-hold'],
  PostObject: [],
};

/** Every (operation, family) pair: a form has no grant fields. */
const CASES = OPERATIONS.flatMap((operation) =>
  FAMILIES.filter((family) => operation !== 'PostObject' || family.fields !== undefined).map((family) => ({
    operation,
    family,
    header: family.name,
    action: family.action,
    shows: RGW_IGNORES[operation].includes(family.name) ? 'nothing (RGW 16 ignores it)' : 'its effect',
  })),
);

interface Outcome {
  readonly status: number;
  readonly code?: string;
  readonly message?: string;
}

let rgw: Rgw;
let direct: S3Client;
let hop: RecordingHop;

beforeAll(async () => {
  rgw = await startRgw();
  direct = rgwS3Client(rgw);
  await direct.send(new CreateBucketCommand({ Bucket: LOCKED, ObjectLockEnabledForBucket: true }));
  await direct.send(new CreateBucketCommand({ Bucket: PLAIN }));
  for (const bucket of [LOCKED, PLAIN]) await direct.send(new PutObjectCommand({ Bucket: bucket, Key: SOURCE, Body: 'the source' }));
  hop = await startRecordingHop(rgw.endpoint);
}, 60_000);

afterAll(async () => {
  direct?.destroy();
  await hop?.stop();
  await rgw?.stop();
});

function config(): string {
  return [
    ...[LOCKED, PLAIN].map((name) => bucketToml({ name, backend_type: 's3' }, s3Options(hop.endpoint, name, rgw))),
    credentialToml(WRITER, { principal_name: 'writer' }, [{ bucket: '*', actions: WRITER_ACTIONS }]),
    credentialToml(OWNER, { principal_name: 'owner' }, [{ bucket: '*', actions: [...WRITER_ACTIONS, ...EXTRA_ACTIONS] }]),
  ].join('\n');
}

/** The request heads RGW received since `from` (the hop's count before the request). */
const sentSince = (from: number) => hop.requests.slice(from);
/** What RGW was asked since `from`, as method and path. */
const askedSince = (from: number): string[] => sentSince(from).map((r) => `${r.method} ${r.path}`);

/** Whether RGW holds neither an object nor an upload in progress at `key`. */
async function untouched(bucket: string, key: string): Promise<boolean> {
  const uploads = await direct.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key }));
  return !(await exists(direct, bucket, key)) && (uploads.Uploads ?? []).length === 0;
}

describe.each(TRANSPORT_RUNTIMES)('object headers that need their own action, on RGW with object lock (%s runtime)', (runtime) => {
  let gw: RunningGateway;
  let clients: Record<Principal, S3Client>;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config() });
    clients = { writer: jsClient(gw.endpoint, WRITER), owner: jsClient(gw.endpoint, OWNER) };
  }, 60_000);

  afterAll(async () => {
    clients?.writer.destroy();
    clients?.owner.destroy();
    await gw?.stop();
  });

  /** Sends `operation` with the family's header (or form field) as `who`; a multipart upload is completed. */
  async function send(operation: Operation, family: Family, who: Principal, key: string): Promise<Outcome> {
    const client = clients[who];
    const Bucket = family.bucket;
    try {
      switch (operation) {
        case 'PutObject':
          await client.send(new PutObjectCommand({ Bucket, Key: key, Body: 'an object', ...family.params }));
          return { status: 200 };
        case 'CopyObject':
          // COPY would keep the source's tags: only REPLACE sets the request's.
          await client.send(new CopyObjectCommand({ Bucket, Key: key, CopySource: copySource(Bucket, SOURCE), ...family.params, TaggingDirective: family.params.Tagging ? 'REPLACE' : undefined }));
          return { status: 200 };
        case 'CreateMultipartUpload': {
          const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key: key, ...family.params }));
          const part = await client.send(new UploadPartCommand({ Bucket, Key: key, UploadId, PartNumber: 1, Body: 'the only part' }));
          await client.send(new CompleteMultipartUploadCommand({ Bucket, Key: key, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }));
          return { status: 200 };
        }
        case 'PostObject':
          return await postForm(KEYS[who], Bucket, key, family.fields ?? {});
      }
    } catch (err) {
      if (!(err instanceof S3ServiceException)) throw err;
      return { status: err.$metadata.httpStatusCode ?? 0, code: err.name, message: err.message };
    }
  }

  /** A browser form signed by `keys` (the policy holding every field), posted as a page would. */
  async function postForm(keys: Keys, bucket: string, key: string, fields: Record<string, string>): Promise<Outcome> {
    const post = await presignedPost(gw.endpoint, keys, bucket, key, { fields });
    const form = new FormData();
    for (const [name, value] of Object.entries(post.fields)) form.append(name, value);
    form.append('file', new Blob(['a form upload']), 'form.txt');
    const res = await fetch(`${gw.endpoint}/${bucket}`, { method: 'POST', body: form });
    const body = await res.text();
    return { status: res.status, code: errorCode(body), message: /<Message>([^<]*)<\/Message>/.exec(body)?.[1] };
  }

  it.each(CASES)(
    'GIVEN a key without $action WHEN it sends $operation with $header THEN 403 AccessDenied names the action, and RGW is never asked',
    async ({ operation, family }) => {
      const key = `${runtime}/${operation}/refused/${family.action}/${family.sent[0]}`;
      const before = hop.requests.length;
      const outcome = await send(operation, family, 'writer', key);
      expect(outcome).toEqual({
        status: 403,
        code: 'AccessDenied',
        message: `Access Denied: writer may not ${family.action} on ${family.bucket}/${key} (the request carries ${family.refusalNames})`,
      });
      expect(askedSince(before)).toEqual([]);
      expect(await untouched(family.bucket, key)).toBe(true);
    },
  );

  it.each(CASES)('GIVEN a key with $action WHEN it sends $operation with $header THEN it is stored, the header reaches RGW, and RGW shows $shows', async ({ operation, family }) => {
    const key = `${runtime}/${operation}/allowed/${family.action}/${family.sent[0]}`;
    const before = hop.requests.length;
    const outcome = await send(operation, family, 'owner', key);
    expect(outcome.code).toBeUndefined();
    expect([200, 204]).toContain(outcome.status);
    const [header, value] = family.sent;
    expect(sentSince(before).filter((r) => r.headers[header] === value)).toHaveLength(1);
    expect(await exists(direct, family.bucket, key)).toBe(true);
    const shown = RGW_IGNORES[operation].includes(family.name) ? family.absent : family.stored;
    expect(await family.effect(direct, key)).toEqual(shown);
  });

  it('GIVEN a key without put_object_tagging WHEN it copies with x-amz-tagging but the COPY directive THEN the copy is made: the tags it carries set nothing', async () => {
    const key = `${runtime}/CopyObject/copy-directive.txt`;
    await clients.writer.send(new CopyObjectCommand({ Bucket: PLAIN, Key: key, CopySource: copySource(PLAIN, SOURCE), Tagging: 'team=storage' }));
    expect(await exists(direct, PLAIN, key)).toBe(true);
  });

  describe('deleting a version under GOVERNANCE retention', () => {
    /** A version stored directly on RGW under GOVERNANCE retention until UNTIL. */
    async function governed(key: string): Promise<string> {
      const put = await direct.send(new PutObjectCommand({ Bucket: LOCKED, Key: key, Body: 'retained', ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: UNTIL }));
      return put.VersionId ?? '';
    }
    const versionExists = async (key: string, VersionId: string): Promise<boolean> =>
      (await codeOf(direct.send(new HeadObjectCommand({ Bucket: LOCKED, Key: key, VersionId })))) === undefined;

    it('GIVEN a key without bypass_governance_retention WHEN it deletes the version with x-amz-bypass-governance-retention THEN 403 AccessDenied names the action, and RGW is never asked', async () => {
      const key = `${runtime}/governed/refused.txt`;
      const version = await governed(key);
      const before = hop.requests.length;
      const refused = clients.writer.send(new DeleteObjectCommand({ Bucket: LOCKED, Key: key, VersionId: version, BypassGovernanceRetention: true }));
      await expect(refused).rejects.toMatchObject({
        name: 'AccessDenied',
        message: `Access Denied: writer may not bypass_governance_retention on ${LOCKED}/${key} (the request carries x-amz-bypass-governance-retention)`,
      });
      expect(askedSince(before)).toEqual([]);
      expect(await versionExists(key, version)).toBe(true);
    });

    it('GIVEN a key without bypass_governance_retention WHEN it deletes the version without the header THEN the gateway passes it on and RGW refuses it (403 AccessDenied): the retention holds', async () => {
      const key = `${runtime}/governed/unbypassed.txt`;
      const version = await governed(key);
      const before = hop.requests.length;
      expect(await codeOf(clients.writer.send(new DeleteObjectCommand({ Bucket: LOCKED, Key: key, VersionId: version })))).toBe('AccessDenied');
      expect(sentSince(before).map((r) => r.method)).toEqual(['DELETE']);
      expect(await versionExists(key, version)).toBe(true);
    });

    it('GIVEN a key with bypass_governance_retention WHEN it deletes the version with x-amz-bypass-governance-retention THEN the header reaches RGW and the version is gone', async () => {
      const key = `${runtime}/governed/bypassed.txt`;
      const version = await governed(key);
      const before = hop.requests.length;
      await clients.owner.send(new DeleteObjectCommand({ Bucket: LOCKED, Key: key, VersionId: version, BypassGovernanceRetention: true }));
      expect(sentSince(before).map((r) => [r.method, r.headers['x-amz-bypass-governance-retention']])).toEqual([['DELETE', 'true']]);
      expect(await versionExists(key, version)).toBe(false);
    });

    it('GIVEN DeleteObjects with x-amz-bypass-governance-retention THEN a key without the action is refused whole (403, RGW never asked) and one with it deletes the version', async () => {
      const key = `${runtime}/governed/batch.txt`;
      const version = await governed(key);
      const batch = (who: Principal) =>
        clients[who].send(new DeleteObjectsCommand({ Bucket: LOCKED, BypassGovernanceRetention: true, Delete: { Objects: [{ Key: key, VersionId: version }] } }));
      const before = hop.requests.length;
      await expect(batch('writer')).rejects.toMatchObject({ name: 'AccessDenied', message: expect.stringContaining('writer may not bypass_governance_retention') });
      expect(askedSince(before)).toEqual([]);
      expect(await versionExists(key, version)).toBe(true);
      const deleted = await batch('owner');
      expect(deleted.Errors ?? []).toEqual([]);
      expect(deleted.Deleted?.map((d) => [d.Key, d.VersionId])).toEqual([[key, version]]);
      expect(await versionExists(key, version)).toBe(false);
    });
  });
});
