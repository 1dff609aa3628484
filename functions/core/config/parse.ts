import { parse as parseToml } from 'smol-toml';
import {
  ACTIONS,
  type Action,
  type BackendConfig,
  type Bucket,
  type Config,
  type Credential,
  type PathMapping,
  type Role,
  type Scope,
  type Settings,
} from './types';
import { readBackend } from './backend-options';
import { readCorsRules, readVirtualHostDomains } from './browsers';
import { ConfigError, Reader, isHttpsUrl, isTable, type Environment, type Table } from './reader';
import { readSettings } from './settings';

export { ConfigError, type Environment } from './reader';

/**
 * Parses and validates a TOML configuration completely. Every problem is collected (not just the first) so
 * an operator fixes the file in one pass; secrets may be literal or `{ env = "NAME" }`.
 */
export function parseConfig(tomlText: string, env: Environment = {}): Config {
  let doc: Table;
  try {
    doc = parseToml(tomlText) as Table;
  } catch (err) {
    throw new ConfigError([`TOML syntax: ${(err as Error).message.split('\n')[0]}`]);
  }
  const problems: string[] = [];
  const top = new Reader(doc, 'configuration', env, problems);
  top.allowOnly([
    'buckets', 'credentials', 'roles', 'max_upload_bytes', 'path_mapping',
    'cors_rules', 'sts_cors', 'virtual_host_domains', 'sigv2_presigned_urls',
  ]);
  const settings = readSettings(env, top.optionalInteger('max_upload_bytes'), problems);
  const pathMapping = readPathMapping(doc.path_mapping, env, problems);
  const browsers = readBrowserSettings(top, pathMapping);
  const buckets = uniqueBy(top.tables('buckets').map((t) => readBucket(t, settings, pathMapping)), (b) => b.name, '[[buckets]]', 'name', problems);
  const credentials = uniqueBy(top.tables('credentials').map(readCredential), (c) => c.accessKeyId, '[[credentials]]', 'access_key_id', problems);
  const roles = uniqueBy(top.tables('roles').map(readRole), (r) => r.roleId, '[[roles]]', 'role_id', problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return { buckets, credentials, roles, settings, ...(pathMapping ? { pathMapping } : {}), ...browsers };
}

/** `[[cors_rules]]`, `sts_cors`, `virtual_host_domains` and `sigv2_presigned_urls` (see config/browsers.ts). */
function readBrowserSettings(top: Reader, pathMapping: PathMapping | undefined): Pick<Config, 'cors' | 'virtualHostDomains' | 'sigv2PresignedUrls'> {
  const rules = readCorsRules(top, 'cors_rules');
  const sts = top.optionalBoolean('sts_cors');
  if (sts === true && !rules?.length) top.problem('sts_cors', 'needs gateway-wide [[cors_rules]] to answer from');
  const domains = readVirtualHostDomains(top, pathMapping);
  return {
    ...(rules !== undefined || sts !== undefined ? { cors: { rules: rules ?? [], sts: sts ?? false } } : {}),
    ...(domains?.length ? { virtualHostDomains: domains } : {}),
    sigv2PresignedUrls: top.optionalBoolean('sigv2_presigned_urls') ?? true,
  };
}

/** Longest mapping: deeper ones are better served by prefixes inside one bucket. */
const MAX_MAPPED_SEGMENTS = 8;

/** `[path_mapping]`: `segments` (2 to 8) and `separator` (default ":"). Absent: no mapping. */
function readPathMapping(value: unknown, env: Environment, problems: string[]): PathMapping | undefined {
  if (value === undefined) return undefined;
  if (!isTable(value)) {
    problems.push('[path_mapping]: must be a table');
    return undefined;
  }
  const t = new Reader(value, '[path_mapping]', env, problems);
  t.allowOnly(['segments', 'separator']);
  const segments = t.optionalInteger('segments');
  if (segments === undefined) {
    if (!t.has('segments')) t.problem('segments', 'is required');
  } else if (segments < 2 || segments > MAX_MAPPED_SEGMENTS) {
    t.problem('segments', `must be an integer from 2 to ${MAX_MAPPED_SEGMENTS} (the path segments that name one virtual bucket)`);
  }
  const separator = t.optionalString('separator') ?? ':';
  if (separator === '' || /[/\s\u0000-\u001f\u007f]/.test(separator)) {
    t.problem('separator', 'must be a non-empty string without "/", spaces or control characters');
  }
  if (segments === undefined || segments < 2 || segments > MAX_MAPPED_SEGMENTS) return undefined;
  return { segments, separator };
}

/**
 * In a path-mapped deployment every virtual bucket is addressed by its path: its name must be exactly
 * `segments` parts joined by the separator, each a usable path segment.
 */
function checkMappedName(t: Reader, name: string, mapping: PathMapping): void {
  const parts = name.split(mapping.separator);
  const example = Array.from({ length: mapping.segments }, (_, i) => `part${i + 1}`).join(mapping.separator);
  if (parts.length !== mapping.segments || parts.some((p) => p === '' || p === '.' || p === '..')) {
    t.problem('name', `must be ${mapping.segments} non-empty parts joined by "${mapping.separator}" (like "${example}"), because [path_mapping] segments = ${mapping.segments}`);
  }
}

const BACKEND_TYPES: Record<string, BackendConfig['type']> = {
  s3: 's3',
  objstore: 's3',
  azure: 'azure',
  az: 'azure',
  gcs: 'gcs',
  gs: 'gcs',
};

function readBucket(t: Reader, settings: Settings, pathMapping: PathMapping | undefined): Bucket {
  t.allowOnly(['name', 'backend_type', 'anonymous_access', 'backend_options', 'cors_rules']);
  const name = t.requiredString('name');
  t.label(name);
  if (name && !/^[^/\s\u0000-\u001f]+$/.test(name)) t.problem('name', 'must be one path segment without "/", spaces or control characters');
  if (name === '.' || name === '..') t.problem('name', 'must not be "." or ".."');
  // S3's own rule (names start with a letter or digit); the gateway's paths /.health, /.sts and /.well-known rely on it.
  else if (name.startsWith('.')) t.problem('name', 'must not start with "." (paths starting with a dot are the gateway\'s own, like /.health)');
  if (name && pathMapping) checkMappedName(t, name, pathMapping);
  const rawType = t.requiredString('backend_type');
  const type = Object.hasOwn(BACKEND_TYPES, rawType.toLowerCase()) ? BACKEND_TYPES[rawType.toLowerCase()] : undefined;
  if (rawType && !type) t.problem('backend_type', `"${rawType}" is not one of s3 (objstore), azure (az), gcs (gs)`);
  const options = t.table('backend_options');
  const backend = readBackend(type ?? 's3', options, settings);
  const corsRules = readCorsRules(t, 'cors_rules');
  return { name, anonymousAccess: t.optionalBoolean('anonymous_access') ?? false, backend, ...(corsRules ? { corsRules } : {}) };
}

function readCredential(t: Reader): Credential {
  t.allowOnly(['access_key_id', 'secret_access_key', 'principal_name', 'created_at', 'enabled', 'allowed_scopes']);
  const accessKeyId = t.requiredSecret('access_key_id');
  t.label(accessKeyId);
  const createdAt = t.optionalString('created_at');
  if (createdAt !== undefined && Number.isNaN(Date.parse(createdAt))) t.problem('created_at', 'must be an ISO 8601 timestamp');
  return {
    accessKeyId,
    secretAccessKey: t.requiredSecret('secret_access_key'),
    principalName: t.optionalString('principal_name') ?? accessKeyId,
    createdAt,
    enabled: t.optionalBoolean('enabled') ?? true,
    scopes: t.tables('allowed_scopes').map(readScope),
  };
}

function readRole(t: Reader): Role {
  t.allowOnly([
    'role_id', 'name', 'trusted_oidc_issuers', 'required_audiences', 'subject_conditions',
    'max_session_duration_secs', 'allowed_scopes',
  ]);
  const roleId = t.requiredString('role_id');
  t.label(roleId);
  const maxSession = t.optionalInteger('max_session_duration_secs') ?? 3600;
  if (maxSession < 900 || maxSession > 43200) t.problem('max_session_duration_secs', 'must be between 900 and 43200 seconds');
  const trustedIssuers = t.stringArray('trusted_oidc_issuers');
  // An http issuer would load and never verify a token: the key cache (sts/jwks.ts) fetches over https only.
  for (const issuer of trustedIssuers) {
    if (!isHttpsUrl(issuer)) t.problem('trusted_oidc_issuers', `"${issuer}" must be an https:// URL, as the key cache fetches an issuer's keys over https only`);
  }
  return {
    roleId,
    name: t.optionalString('name') ?? roleId,
    trustedIssuers: trustedIssuers.map((i) => i.replace(/\/+$/, '')),
    requiredAudiences: t.stringArray('required_audiences'),
    subjectConditions: t.stringArray('subject_conditions'),
    maxSessionDurationSecs: maxSession,
    scopes: t.tables('allowed_scopes').map(readScope),
  };
}

function readScope(t: Reader): Scope {
  t.allowOnly(['bucket', 'prefixes', 'actions']);
  const actions = t.stringArray('actions');
  for (const action of actions) {
    if (!(ACTIONS as readonly string[]).includes(action)) t.problem('actions', `"${action}" is not one of ${ACTIONS.join(', ')}`);
  }
  return { bucket: t.requiredString('bucket'), prefixes: t.stringArray('prefixes'), actions: actions as Action[] };
}

function uniqueBy<T>(items: T[], key: (item: T) => string, table: string, field: string, problems: string[]): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    const k = key(item);
    if (map.has(k)) problems.push(`${table} "${k}": ${field} is used by more than one entry`);
    map.set(k, item);
  }
  return map;
}
