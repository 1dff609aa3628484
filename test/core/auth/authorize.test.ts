import { authorize, authorizeListBuckets, isAuthorized, namesEtag, ownsBucket, type Access } from '../../../functions/core/auth/authorize';
import { OPERATIONS as TABLE } from '../../../functions/core/operations/table';
import type { OperationName } from '../../../functions/core/routing';
import { ACTIONS, type Action, type Bucket, type Scope } from '../../../functions/core/config/types';
import { S3Error } from '../../../functions/core/errors';
import type { Identity } from '../../../functions/core/auth/identity';

/**
 * Every operation against every kind of caller: who may do what, where. Each row lists the operations a
 * caller may do on `reports/q1.csv` in bucket `data`; every other operation must be refused.
 */
const bucket = (name: string, anonymousAccess: boolean): Bucket => ({ name, anonymousAccess }) as unknown as Bucket;
const PUBLIC = bucket('data', true);
const PRIVATE = bucket('data', false);

const ALL: readonly Action[] = ACTIONS;

const key = (scopes: Scope[], session = false): Identity => ({
  principal: {
    type: 'key',
    accessKeyId: 'AKID',
    name: 'caller',
    scopes,
    session: session ? { roleId: 'ci', subject: 'repo:acme/widgets', expiresAt: 0 } : undefined,
  },
});
const ANONYMOUS: Identity = { principal: { type: 'anonymous' } };

type Named = { readonly name: OperationName; readonly versionId?: string; readonly headers?: Record<string, string> };
/** The access of a row of the operation table (every operation on a bucket has one). */
const accessOf = (name: OperationName): Access => TABLE[name].access as Access;
const ROWS = (Object.keys(TABLE) as OperationName[]).filter((name) => typeof TABLE[name].access === 'object');

/** Every row of the table, and every operation again naming a version where its row has a version variant. */
const OPERATIONS: readonly Named[] = [
  ...ROWS.map((name) => ({ name })),
  ...ROWS.filter((name) => accessOf(name).versioned !== undefined && name !== 'DeleteObjects').map((name) => ({ name, versionId: 'v1' })),
];
const label = (op: Named): string => (op.versionId === undefined ? op.name : `${op.name}?versionId`);

/** As the dispatcher (or, for a form and each DeleteObjects entry, the handler) asks: on the key, or somewhere in the bucket. */
const allowed = (identity: Identity, op: Named, target: Bucket, key: string): boolean => {
  const access = accessOf(op.name);
  return isAuthorized(identity, access, { versionId: op.versionId, headers: new Headers(op.headers) }, target, access.on === 'bucket' ? undefined : key);
};
const check = (identity: Identity, op: Named, target: Bucket, key: string): void => {
  const access = accessOf(op.name);
  authorize(identity, access, { versionId: op.versionId, headers: new Headers(op.headers) }, target, access.on === 'bucket' ? undefined : key);
};

const READS = ['GetObject', 'HeadObject', 'GetObjectAttributes', 'ListObjects', 'HeadBucket', 'GetBucketLocation'];
const EVERYTHING = OPERATIONS.map(label);

const CASES: ReadonlyArray<readonly [string, Identity, Bucket, readonly string[]]> = [
  ['anonymous, bucket open to anonymous reads', ANONYMOUS, PUBLIC, READS],
  ['anonymous, private bucket', ANONYMOUS, PRIVATE, []],
  ['a key with every action on every bucket', key([{ bucket: '*', prefixes: [], actions: ALL }]), PRIVATE, EVERYTHING],
  ['a key with every action on this bucket', key([{ bucket: 'data', prefixes: [], actions: ALL }]), PRIVATE, EVERYTHING],
  ['a key with every action on another bucket', key([{ bucket: 'other', prefixes: [], actions: ALL }]), PUBLIC, []],
  [
    'a read-only key on reports/',
    key([{ bucket: 'data', prefixes: ['reports/'], actions: ['get_object', 'head_object', 'list_bucket'] }]),
    PRIVATE,
    ['GetObject', 'HeadObject', 'GetObjectAttributes', 'ListObjects', 'HeadBucket', 'GetBucketLocation', 'GetBucketVersioning', 'ListMultipartUploads', 'ListParts'],
  ],
  ['a key with head_object only: metadata, not bodies', key([{ bucket: 'data', prefixes: [], actions: ['head_object'] }]), PRIVATE, ['HeadObject', 'GetObjectAttributes']],
  // Bucket-level reads ask whether the caller may list somewhere in the bucket.
  ['a key on another prefix', key([{ bucket: 'data', prefixes: ['other/'], actions: ALL }]), PRIVATE, ['HeadBucket', 'GetBucketLocation', 'GetBucketVersioning']],
  ['a key on prefix "reports" (covers reports/…, not reportsX)', key([{ bucket: 'data', prefixes: ['reports'], actions: ['get_object'] }]), PRIVATE, ['GetObject']],
  ['a key with get_object only: no version reads', key([{ bucket: 'data', prefixes: [], actions: ['get_object'] }]), PRIVATE, ['GetObject']],
  ['a writer without reads', key([{ bucket: 'data', prefixes: ['reports/'], actions: ['put_object', 'upload_part'] }]), PRIVATE, ['PutObject', 'PostObject', 'CopyObject', 'UploadPart', 'UploadPartCopy']],
  ['a key with delete_object only: no version deletes', key([{ bucket: 'data', prefixes: [], actions: ['delete_object'] }]), PRIVATE, ['DeleteObject', 'DeleteObjects']],
  ['a key with delete_object_version only: version deletes alone', key([{ bucket: 'data', prefixes: [], actions: ['delete_object_version'] }]), PRIVATE, ['DeleteObject?versionId']],
  [
    'a key with list_bucket: no version listing',
    key([{ bucket: 'data', prefixes: [], actions: ['list_bucket'] }]),
    PRIVATE,
    ['ListObjects', 'HeadBucket', 'GetBucketLocation', 'GetBucketVersioning', 'ListMultipartUploads', 'ListParts'],
  ],
  ['a key with list_bucket_versions only', key([{ bucket: 'data', prefixes: ['reports/'], actions: ['list_bucket_versions'] }]), PRIVATE, ['ListObjectVersions']],
  [
    'a key with the tagging actions: tags of the current object, not of a version',
    key([{ bucket: 'data', prefixes: [], actions: ['get_object_tagging', 'put_object_tagging', 'delete_object_tagging'] }]),
    PRIVATE,
    ['GetObjectTagging', 'PutObjectTagging', 'DeleteObjectTagging'],
  ],
  [
    'a key with the tagging actions and get_object_version: tags of versions too',
    key([{ bucket: 'data', prefixes: [], actions: ['get_object_tagging', 'put_object_tagging', 'delete_object_tagging', 'get_object_version'] }]),
    PRIVATE,
    ['GetObjectTagging', 'PutObjectTagging', 'DeleteObjectTagging', 'GetObjectTagging?versionId', 'PutObjectTagging?versionId', 'DeleteObjectTagging?versionId', 'GetObject?versionId', 'HeadObject?versionId', 'GetObjectAttributes?versionId'],
  ],
  ['get_object_version alone: no tags of a version', key([{ bucket: 'data', prefixes: [], actions: ['get_object_version'] }]), PRIVATE, ['GetObject?versionId', 'HeadObject?versionId', 'GetObjectAttributes?versionId']],
  ['an STS session with resolved scopes', key([{ bucket: 'data', prefixes: ['reports/'], actions: ['get_object'] }], true), PUBLIC, ['GetObject']],
  ['an STS session whose {claim} bucket resolved to nothing', key([{ bucket: '', prefixes: [], actions: ALL }], true), PUBLIC, []],
  [
    'a SigV2 presigned link signed by a key with every action: object reads only',
    { ...key([{ bucket: 'data', prefixes: [], actions: ALL }]), sigv2: true },
    PRIVATE,
    ['GetObject', 'HeadObject', 'GetObject?versionId', 'HeadObject?versionId'],
  ],
];

describe('authorize: every operation against every kind of caller, on data/reports/q1.csv', () => {
  describe.each(CASES)('%s', (_name, identity, target, permitted) => {
    it.each(OPERATIONS.map((op) => [label(op), op] as const))('%s', (name, op) => {
      const expected = permitted.includes(name);
      expect(allowed(identity, op, target, 'reports/q1.csv')).toBe(expected);
      if (expected) expect(() => check(identity, op, target, 'reports/q1.csv')).not.toThrow();
      else expect(() => check(identity, op, target, 'reports/q1.csv')).toThrow(expect.objectContaining({ code: 'AccessDenied' }));
    });
  });
});

describe('authorize: refusals', () => {
  it('name the principal, action and key for a signed caller, and nothing for an anonymous one', () => {
    const refusal = (identity: Identity): S3Error => {
      try {
        check(identity, { name: 'PutObject' }, PRIVATE, 'a/b');
      } catch (err) {
        return err as S3Error;
      }
      throw new Error('not refused');
    };
    expect(refusal(key([])).message).toBe('Access Denied: caller may not put_object on data/a/b');
    expect(refusal(ANONYMOUS).message).not.toContain('put_object');
  });
});

describe('authorize, bucket level: the caller may do it somewhere in the bucket', () => {
  const writer = key([{ bucket: 'data', prefixes: ['mine/'], actions: ['delete_object'] }]);
  it.each([
    ['a key with delete_object under one prefix', writer, PRIVATE, true],
    ['a key with delete_object on another bucket', key([{ bucket: 'x', prefixes: [], actions: ['delete_object'] }]), PRIVATE, false],
    ['anonymous, even on a bucket open to reads', ANONYMOUS, PUBLIC, false],
  ])('DeleteObjects: %s -> %s', (_name, identity, target, expected) => {
    expect(isAuthorized(identity, accessOf('DeleteObjects'), { headers: new Headers() }, target)).toBe(expected);
  });

  it('anonymous HeadBucket follows the bucket flag', () => {
    expect(allowed(ANONYMOUS, { name: 'HeadBucket' }, PUBLIC, '')).toBe(true);
    expect(allowed(ANONYMOUS, { name: 'HeadBucket' }, PRIVATE, '')).toBe(false);
  });
});

describe('authorize: a refused tagging call of a version names the action it lacks', () => {
  it('get_object_version, when the caller holds the tagging action', () => {
    const tagger = key([{ bucket: 'data', prefixes: [], actions: ['get_object_tagging'] }]);
    expect(() => check(tagger, { name: 'GetObjectTagging', versionId: 'v1' }, PRIVATE, 'a')).toThrow(
      'Access Denied: caller may not get_object_version on data/a',
    );
  });
});

describe('authorize: a write or delete comparing the object\'s ETag needs get_object as well, as on S3', () => {
  const writer = key([{ bucket: 'data', prefixes: [], actions: ['put_object', 'delete_object', 'complete_multipart_upload'] }]);
  const reader = key([{ bucket: 'data', prefixes: [], actions: ['put_object', 'delete_object', 'complete_multipart_upload', 'get_object'] }]);
  it.each(['PutObject', 'DeleteObject', 'CompleteMultipartUpload'] as const)('%s', (name) => {
    const conditional = { name, headers: { 'if-match': '"abc"' } };
    expect(allowed(writer, { name }, PRIVATE, 'a')).toBe(true);
    expect(allowed(writer, { name, headers: { 'if-match': '*' } }, PRIVATE, 'a')).toBe(true);
    expect(() => check(writer, conditional, PRIVATE, 'a')).toThrow('Access Denied: caller may not get_object on data/a (the request carries If-Match)');
    expect(allowed(reader, conditional, PRIVATE, 'a')).toBe(true);
  });

  it.each([
    ['"abc"', true],
    ['abc', true],
    ['*', false],
    [' * ', false],
    [null, false],
    [undefined, false],
  ])('If-Match %j names an ETag: %s (`*` asks only whether an object exists)', (value, expected) => {
    expect(namesEtag(value)).toBe(expected);
  });
});

describe('ownsBucket (CreateBucket on an existing virtual bucket)', () => {
  it.each([
    ['any scope on the bucket, whatever its actions and prefixes', key([{ bucket: 'data', prefixes: ['x/'], actions: ['get_object'] }]), true],
    ['a scope on every bucket', key([{ bucket: '*', prefixes: [], actions: [] }]), true],
    ['scopes on other buckets only', key([{ bucket: 'other', prefixes: [], actions: ALL }]), false],
    ['an STS scope whose {claim} bucket resolved to nothing', key([{ bucket: '', prefixes: [], actions: ALL }], true), false],
    ['an anonymous caller, even on a bucket open to reads', ANONYMOUS, false],
  ])('%s -> %s', (_name, identity, expected) => {
    expect(ownsBucket(identity, PUBLIC)).toBe(expected);
  });
});

describe('ListBuckets', () => {
  it('needs a signed caller, whatever its scopes', () => {
    expect(() => authorizeListBuckets(ANONYMOUS)).toThrow(expect.objectContaining({ code: 'AccessDenied' }));
    expect(() => authorizeListBuckets(key([]))).not.toThrow();
  });
});
