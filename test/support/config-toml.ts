import { AZURITE_ACCOUNT, AZURITE_KEY } from './azurite';

/**
 * Gateway configuration TOML for specs: buckets, credentials with their scopes, STS roles. A spec passes
 * what its behaviour depends on (names, keys, scopes, backend endpoints) and this writes the tables, so
 * the same blocks are not copied from suite to suite. Specs of the configuration parser itself keep
 * their TOML literal: there the text is what is specified.
 */

/** A secret given inline or read from an environment variable (`{ env = "NAME" }`). */
export interface EnvRef {
  readonly env: string;
}
export type TomlValue = string | number | boolean | readonly string[] | EnvRef;
export type TomlFields = Readonly<Record<string, TomlValue | undefined>>;

/** An access key pair, as test/support/clients' `Keys` (kept structural so unit specs need no SDK). */
export interface KeyPair {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** One `allowed_scopes` entry; `prefixes` defaults to every key. */
export interface Scope {
  readonly bucket: string;
  readonly prefixes?: readonly string[];
  readonly actions: readonly string[];
}

/** The steps of a multipart upload. */
export const MULTIPART_ACTIONS: readonly string[] = ['create_multipart_upload', 'upload_part', 'complete_multipart_upload', 'abort_multipart_upload'];
/** The object actions of the e2e suites' admin key (versions read, not deleted; no tagging). */
export const ALL_ACTIONS: readonly string[] = ['get_object', 'get_object_version', 'head_object', 'put_object', 'delete_object', 'list_bucket', ...MULTIPART_ACTIONS];
/** Reading and listing. */
export const READ_ACTIONS: readonly string[] = ['get_object', 'head_object', 'list_bucket'];

function tomlValue(value: TomlValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isEnvRef(value)) return `{ env = ${JSON.stringify(value.env)} }`;
  return `[${value.map((item) => JSON.stringify(item)).join(', ')}]`;
}

function isEnvRef(value: TomlValue): value is EnvRef {
  return typeof value === 'object' && !Array.isArray(value);
}

/** `key = value` lines, in the order given; undefined fields are left out. */
export function fieldsToml(fields: TomlFields): string {
  return Object.entries(fields)
    .filter((entry): entry is [string, TomlValue] => entry[1] !== undefined)
    .map(([key, value]) => `${key} = ${tomlValue(value)}`)
    .join('\n');
}

/** A table header (`[name]`, or `[[name]]` for an array of tables) and its fields. */
export function tableToml(header: string, fields: TomlFields): string {
  return `${header}\n${fieldsToml(fields)}\n`;
}

/** The `[[<owner>.allowed_scopes]]` entries of a credential or a role. */
export function scopesToml(owner: 'credentials' | 'roles', scopes: readonly Scope[]): string {
  return scopes
    .map((scope) => tableToml(`[[${owner}.allowed_scopes]]`, { bucket: scope.bucket, prefixes: scope.prefixes ?? [], actions: scope.actions }))
    .join('');
}

/** A scope granting `actions` on every key of `bucket`. */
export function everywhere(actions: readonly string[], bucket = '*'): Scope {
  return { bucket, actions };
}

/**
 * A `[[credentials]]` entry: `keys`, then `fields` (principal_name, enabled, or a secret_access_key that
 * overrides the inline secret, such as `{ env: 'NAME' }`), then its scopes.
 */
export function credentialToml(keys: KeyPair, fields: TomlFields, scopes: readonly Scope[]): string {
  const head = { access_key_id: keys.accessKeyId, secret_access_key: keys.secretAccessKey, ...fields };
  return tableToml('[[credentials]]', head) + scopesToml('credentials', scopes);
}

/**
 * An STS `[[roles]]` entry: its fields (role_id, name, trusted_oidc_issuers, subject_conditions...), then
 * its scopes. `required_audiences` is STS's own audience unless given.
 */
export function roleToml(fields: TomlFields, scopes: readonly Scope[]): string {
  const all = { ...fields, required_audiences: fields.required_audiences ?? ['sts.amazonaws.com'] };
  return tableToml('[[roles]]', all) + scopesToml('roles', scopes);
}

/** A `[[buckets]]` entry: its own fields (name, backend_type, anonymous_access...), then `[buckets.backend_options]`. */
export function bucketToml(fields: TomlFields, backendOptions: TomlFields): string {
  return tableToml('[[buckets]]', fields) + tableToml('[buckets.backend_options]', backendOptions);
}

/** Backend options for an S3 backend reached with one key pair (RGW, s3rver, a stand-in address). */
export function s3Options(endpoint: string, bucketName: string, keys: KeyPair, extra: TomlFields = {}): TomlFields {
  return { endpoint, bucket_name: bucketName, access_key_id: keys.accessKeyId, secret_access_key: keys.secretAccessKey, ...extra };
}

/**
 * Backend options for a bucket of the test RGW, its secret read from `RGW_SECRET` (the suites pass it in
 * the gateway's environment, so the configuration never holds it).
 */
export function rgwOptions(rgw: { readonly endpoint: string; readonly accessKeyId: string }, bucketName: string): TomlFields {
  return { endpoint: rgw.endpoint, bucket_name: bucketName, region: 'us-east-1', access_key_id: rgw.accessKeyId, secret_access_key: { env: 'RGW_SECRET' } };
}

/** Backend options for a container of an Azurite-style account (the well-known development account). */
export function azuriteOptions(endpoint: string, container: string): TomlFields {
  return { account_name: AZURITE_ACCOUNT, container_name: container, endpoint, access_key: AZURITE_KEY };
}

/** Backend options for a bucket of the test GCS emulator, which speaks the JSON dialect only. */
export function gcsEmulatorOptions(endpoint: string, bucket: string): TomlFields {
  return { bucket_name: bucket, endpoint, api: 'json' };
}

/** A `[[buckets.cors_rules]]` entry, for the bucket written just before it. */
export function corsRuleToml(rule: TomlFields): string {
  return tableToml('[[buckets.cors_rules]]', rule);
}
