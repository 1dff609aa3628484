import { GetObjectCommand, PutObjectCommand, S3ServiceException, type S3Client } from '@aws-sdk/client-s3';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import type { Keys } from '../support/clients';
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
    s3rver: rgwS3Client({ ...rgw, endpoint: s3rver.endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }),
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

const ALL_ACTIONS = `["get_object", "get_object_version", "head_object", "put_object", "delete_object", "list_bucket",
  "create_multipart_upload", "upload_part", "complete_multipart_upload", "abort_multipart_upload"]`;

/** A `[[credentials]]` entry for `keys` with one scope: `actions` (a TOML array) on every key of `bucket`. */
export function credentialsToml(keys: Keys, principal: string, actions: string, bucket = '*'): string {
  return `[[credentials]]
access_key_id = "${keys.accessKeyId}"
secret_access_key = "${keys.secretAccessKey}"
principal_name = "${principal}"
[[credentials.allowed_scopes]]
bucket = "${bucket}"
prefixes = []
actions = ${actions}
`;
}

/** ADMIN's `[[credentials]]` entry, for any gateway configuration. */
export const ADMIN_CREDENTIALS = credentialsToml(ADMIN, 'admin', ALL_ACTIONS);

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

export async function readText(client: S3Client, bucket: string, key: string, versionId?: string): Promise<string> {
  const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }));
  return (await out.Body?.transformToString()) ?? '';
}

/**
 * Virtual buckets: `strict` (RGW `data`), `versioned` (RGW `versioned`), `tenant` (RGW `data` under
 * `tenant-a/`), `public` (s3rver, anonymous reads) and `private` (s3rver).
 */
export function gatewayConfig(b: Backends): string {
  const rgw = (name: string, bucket: string, extra = ''): string => `
[[buckets]]
name = "${name}"
backend_type = "s3"
[buckets.backend_options]
endpoint = "${b.rgw.endpoint}"
bucket_name = "${bucket}"
region = "us-east-1"
access_key_id = "${b.rgw.accessKeyId}"
secret_access_key = { env = "RGW_SECRET" }
${extra}`;
  const s3rver = (name: string, anonymous: boolean): string => `
[[buckets]]
name = "${name}"
backend_type = "objstore"
anonymous_access = ${anonymous}
[buckets.backend_options]
endpoint = "${b.s3rver.endpoint}"
bucket_name = "${name}"
access_key_id = "S3RVER"
secret_access_key = "S3RVER"
`;
  return `
${rgw('strict', 'data')}
${rgw('versioned', 'versioned')}
${rgw('tenant', 'data', 'backend_prefix = "tenant-a/"')}
${s3rver('public', true)}
${s3rver('private', false)}

${ADMIN_CREDENTIALS}
[[credentials]]
access_key_id = "${SCOPED.accessKeyId}"
secret_access_key = { env = "SCOPED_SECRET" }
principal_name = "scoped"
[[credentials.allowed_scopes]]
bucket = "strict"
prefixes = ["reports"]
actions = ["get_object", "head_object", "list_bucket"]
[[credentials.allowed_scopes]]
bucket = "versioned"
prefixes = []
actions = ["get_object", "head_object", "list_bucket"]

[[credentials]]
access_key_id = "${DISABLED.accessKeyId}"
secret_access_key = "${DISABLED.secretAccessKey}"
principal_name = "disabled"
enabled = false
[[credentials.allowed_scopes]]
bucket = "*"
prefixes = []
actions = ${ALL_ACTIONS}
`;
}

export function gatewayEnv(b: Backends): Record<string, string> {
  return { RGW_SECRET: b.rgw.secretAccessKey, SCOPED_SECRET: SCOPED.secretAccessKey };
}
