import { GetObjectCommand, PutObjectCommand, S3ServiceException, type S3Client } from '@aws-sdk/client-s3';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import type { Keys } from '../support/clients';
import { ALL_ACTIONS, READ_ACTIONS, bucketToml, credentialToml, everywhere, rgwOptions, s3Options, type TomlFields } from '../support/config-toml';
import { S3RVER_KEYS } from '../support/large-bodies';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';

/**
 * The real backends most suites run against: Ceph RGW (strict: real signatures, versioning) and s3rver
 * (zero-setup), and a gateway configuration exposing them as virtual buckets.
 */
export interface Backends {
  readonly rgw: Rgw;
  readonly s3rver: S3rver;
  /** Direct clients, bypassing the gateway, to seed and inspect backends. */
  readonly direct: { readonly rgw: S3Client; readonly s3rver: S3Client };
  stop(): Promise<void>;
}

/** A key granted everything everywhere. */
export const ADMIN: Keys = { accessKeyId: 'ADMINKEY000000000000', secretAccessKey: 'admin/secret/key/0000000000000000000000' };
/** A key that may read and list only `reports/` in `strict`, and read without versions in `versioned`. */
export const SCOPED: Keys = { accessKeyId: 'SCOPEDKEY00000000000', secretAccessKey: 'scoped/secret/key/000000000000000000000' };
/** A disabled key. */
export const DISABLED: Keys = { accessKeyId: 'DISABLEDKEY000000000', secretAccessKey: 'disabled/secret/key/0000000000000000000' };

export async function startBackends(): Promise<Backends> {
  const [rgw, s3rver] = await Promise.all([startRgw(), startS3rver({ buckets: ['public', 'private'] })]);
  await Promise.all([createBucket(rgw, 'data'), createBucket(rgw, 'versioned', { versioning: true })]);
  const direct = {
    rgw: rgwS3Client(rgw),
    s3rver: rgwS3Client({ ...rgw, endpoint: s3rver.endpoint, ...S3RVER_KEYS }),
  };
  return {
    rgw,
    s3rver,
    direct,
    stop: async () => {
      direct.rgw.destroy();
      direct.s3rver.destroy();
      await Promise.all([rgw.stop(), s3rver.stop()]);
    },
  };
}

export async function putDirect(client: S3Client, bucket: string, key: string, body: string | Uint8Array, contentType = 'text/plain'): Promise<string | undefined> {
  const out = await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
  return out.VersionId;
}

/**
 * ADMIN's `[[credentials]]` entry, for any gateway configuration: it may also set the tags and ACL of what it
 * writes (`x-amz-tagging`, `x-amz-acl`, which need their own actions), but not read or change tags alone.
 */
export const ADMIN_CREDENTIALS = credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere([...ALL_ACTIONS, 'put_object_tagging', 'put_object_acl'])]);

/** Listing fixtures: a page's worth of keys and two sub-directories. */
export const LIST_KEYS = Array.from({ length: 25 }, (_, i) => `list/a-${String(i).padStart(2, '0')}`).concat(['list/dir1/x', 'list/dir2/y']);
/** Keys S3 allows that URL parsers, shells and naive encoders get wrong; stored byte for byte. */
export const SPECIAL_KEYS = [
  'special/star*', 'special/100%.txt', 'special/100%25.txt', 'special/tilde~', 'special/hash#', 'special/question?',
  'special/[brackets]', 'special/plus+sign', 'special/eq=ual', 'special/sp ace', 'special/ünïcødé-日本', 'special/emoji-😀',
  "special/quote'", 'special/amp&and', 'special/semi;colon', 'special/at@dollar$', 'special/comma,colon:',
];
/** A body whose every byte tells its offset (mod 256), for range reads. */
export const RANGE_BODY = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));

/** The S3 error code a client call failed with, or undefined when it succeeded. */
export async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (err) {
    if (err instanceof S3ServiceException) return err.name;
    throw err;
  }
}

/** An `x-amz-copy-source` as the SDKs send one: bucket and key percent-encoded, `/` kept. */
export function copySource(bucket: string, key: string): string {
  return encodeURIComponent(`${bucket}/${key}`).replace(/%2F/g, '/');
}

export async function readText(client: S3Client, bucket: string, key: string, versionId?: string): Promise<string> {
  const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }));
  return (await out.Body?.transformToString()) ?? '';
}

/**
 * Virtual buckets: `strict` (RGW `data`), `versioned` (RGW `versioned`), `tenant` (RGW `data` under
 * `tenant-a/`), `public` (s3rver, anonymous reads) and `private` (s3rver).
 */
export function gatewayConfig(b: Backends): string {
  const rgw = (name: string, bucket: string, extra: TomlFields = {}): string =>
    bucketToml({ name, backend_type: 's3' }, { ...rgwOptions(b.rgw, bucket), ...extra });
  const s3rver = (name: string, anonymous: boolean): string =>
    bucketToml({ name, backend_type: 'objstore', anonymous_access: anonymous }, s3Options(b.s3rver.endpoint, name, S3RVER_KEYS));
  return [
    rgw('strict', 'data'),
    rgw('versioned', 'versioned'),
    rgw('tenant', 'data', { backend_prefix: 'tenant-a/' }),
    s3rver('public', true),
    s3rver('private', false),
    ADMIN_CREDENTIALS,
    credentialToml(SCOPED, { principal_name: 'scoped', secret_access_key: { env: 'SCOPED_SECRET' } }, [
      { bucket: 'strict', prefixes: ['reports'], actions: READ_ACTIONS },
      { bucket: 'versioned', actions: READ_ACTIONS },
    ]),
    credentialToml(DISABLED, { principal_name: 'disabled', enabled: false }, [everywhere(ALL_ACTIONS)]),
  ].join('\n');
}
export function gatewayEnv(b: Backends): Record<string, string> {
  return { RGW_SECRET: b.rgw.secretAccessKey, SCOPED_SECRET: SCOPED.secretAccessKey };
}
