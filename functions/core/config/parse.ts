import { parse as parseToml } from 'smol-toml';
import { fromBase64, fromBase64Url } from '../bytes';
import {
  ACTIONS,
  type Action,
  type BackendConfig,
  type Bucket,
  type Config,
  type Credential,
  type PathMapping,
  type Role,
  type S3BackendAuth,
  type Scope,
  type Settings,
} from './types';

/** Thrown when the configuration is invalid; `problems` lists every error found, each naming where it is. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export type Environment = Readonly<Record<string, string | undefined>>;

type Table = Record<string, unknown>;

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
  top.allowOnly(['buckets', 'credentials', 'roles', 'max_upload_bytes', 'path_mapping']);
  const settings = readSettings(env, top.optionalInteger('max_upload_bytes'), problems);
  const pathMapping = readPathMapping(doc.path_mapping, env, problems);
  const buckets = uniqueBy(top.tables('buckets').map((t) => readBucket(t, settings, pathMapping)), (b) => b.name, '[[buckets]]', 'name', problems);
  const credentials = uniqueBy(top.tables('credentials').map(readCredential), (c) => c.accessKeyId, '[[credentials]]', 'access_key_id', problems);
  const roles = uniqueBy(top.tables('roles').map(readRole), (r) => r.roleId, '[[roles]]', 'role_id', problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return { buckets, credentials, roles, settings, ...(pathMapping ? { pathMapping } : {}) };
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

function readSettings(env: Environment, fileMaxUpload: number | undefined, problems: string[]): Settings {
  const settings: { -readonly [K in keyof Settings]: Settings[K] } = {};
  const sessionKey = env.SESSION_TOKEN_KEY;
  if (sessionKey) {
    const bytes = decodeBase64(sessionKey);
    if (bytes?.length === 32) settings.sessionTokenKey = bytes;
    else problems.push('environment SESSION_TOKEN_KEY: must be the base64 encoding of exactly 32 bytes');
  }
  if (env.OIDC_PROVIDER_KEY) settings.oidcProviderKey = env.OIDC_PROVIDER_KEY;
  if (env.OIDC_PROVIDER_ISSUER) {
    if (isHttpUrl(env.OIDC_PROVIDER_ISSUER)) settings.oidcProviderIssuer = env.OIDC_PROVIDER_ISSUER.replace(/\/+$/, '');
    else problems.push('environment OIDC_PROVIDER_ISSUER: must be an http(s) URL');
  }
  readOidcSettings(env, settings, problems);
  const envMax = env.MAX_UPLOAD_BYTES;
  if (envMax !== undefined && envMax !== '') {
    if (/^\d+$/.test(envMax) && Number(envMax) > 0) settings.maxUploadBytes = Number(envMax);
    else problems.push('environment MAX_UPLOAD_BYTES: must be a positive integer (bytes)');
  } else if (fileMaxUpload !== undefined) {
    if (fileMaxUpload > 0) settings.maxUploadBytes = fileMaxUpload;
    else problems.push('configuration: max_upload_bytes must be a positive integer (bytes)');
  }
  return settings;
}

/**
 * The rest of the identity-provider settings. The PEMs are only carried here; the Gateway reads them into
 * keys at construction and refuses to start (ConfigError) on a bad one.
 */
function readOidcSettings(env: Environment, settings: { -readonly [K in keyof Settings]: Settings[K] }, problems: string[]): void {
  if (env.OIDC_PROVIDER_CERT) settings.oidcProviderCert = env.OIDC_PROVIDER_CERT;
  if (env.OIDC_PROVIDER_PREVIOUS_KEY) settings.oidcProviderPreviousKey = env.OIDC_PROVIDER_PREVIOUS_KEY;
  if (env.OIDC_PROVIDER_PREVIOUS_CERT) settings.oidcProviderPreviousCert = env.OIDC_PROVIDER_PREVIOUS_CERT;
  const duration = env.OIDC_SESSION_DURATION_SECONDS;
  if (duration) {
    if (/^\d+$/.test(duration) && Number(duration) >= 900 && Number(duration) <= 43200) settings.oidcSessionDurationSeconds = Number(duration);
    else problems.push('environment OIDC_SESSION_DURATION_SECONDS: must be an integer from 900 to 43200 (seconds)');
  }
  const refreshAhead = env.OIDC_REFRESH_AHEAD_SECONDS;
  if (refreshAhead) {
    if (/^\d+$/.test(refreshAhead)) settings.oidcRefreshAheadSeconds = Number(refreshAhead);
    else problems.push('environment OIDC_REFRESH_AHEAD_SECONDS: must be a non-negative integer (seconds)');
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
  t.allowOnly(['name', 'backend_type', 'anonymous_access', 'backend_options']);
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
  return { name, anonymousAccess: t.optionalBoolean('anonymous_access') ?? false, backend };
}

function readBackend(type: BackendConfig['type'], o: Reader, settings: Settings): BackendConfig {
  const backendPrefix = o.optionalString('backend_prefix') ?? '';
  if (backendPrefix.startsWith('/')) o.problem('backend_prefix', 'must not start with "/"');
  if (type !== 's3' && o.optionalString('auth_type') !== undefined) {
    o.problem('auth_type', `is only supported for s3 backends; ${type} backends use static credentials`);
  }
  if (type === 'azure') {
    o.allowOnly(['account_name', 'container_name', 'access_key', 'endpoint', 'backend_prefix', 'auth_type']);
    const accountName = o.requiredString('account_name');
    const accessKey = o.optionalSecret('access_key');
    if (accessKey !== undefined && decodeBase64(accessKey) === undefined) o.problem('access_key', 'must be the base64 account key');
    return {
      type,
      accountName,
      containerName: o.requiredString('container_name'),
      accessKey,
      endpoint: o.optionalUrl('endpoint') ?? `https://${accountName}.blob.core.windows.net`,
      backendPrefix,
    };
  }
  if (type === 'gcs') {
    o.allowOnly(['bucket_name', 'service_account_key', 'endpoint', 'backend_prefix', 'auth_type', 'api']);
    const keyJson = o.optionalSecret('service_account_key');
    const api = o.optionalString('api');
    if (api !== undefined && api !== 'xml' && api !== 'json') o.problem('api', `"${api}" is not one of xml, json`);
    if (api === 'json' && keyJson !== undefined) o.problem('api', '"json" sends unsigned requests (emulators); a service_account_key needs the xml API');
    return {
      api: api === 'json' || api === 'xml' ? api : undefined,
      type,
      bucketName: o.requiredString('bucket_name'),
      serviceAccount: keyJson === undefined ? undefined : readServiceAccount(keyJson, o),
      endpoint: o.optionalUrl('endpoint') ?? 'https://storage.googleapis.com',
      backendPrefix,
    };
  }
  o.allowOnly([
    'endpoint', 'bucket_name', 'region', 'access_key_id', 'secret_access_key', 'session_token', 'backend_prefix',
    'auth_type', 'oidc_role_arn', 'oidc_subject', 'oidc_sts_endpoint', 'oidc_audience', 'skip_signature',
  ]);
  const region = o.optionalString('region') ?? 'us-east-1';
  return {
    type,
    endpoint: o.optionalUrl('endpoint') ?? `https://s3.${region}.amazonaws.com`,
    bucketName: o.optionalString('bucket_name'),
    region,
    backendPrefix,
    auth: readS3Auth(o, settings),
  };
}

function readS3Auth(o: Reader, settings: Settings): S3BackendAuth {
  const authType = o.optionalString('auth_type');
  const accessKeyId = o.optionalSecret('access_key_id');
  const secretAccessKey = o.optionalSecret('secret_access_key');
  const sessionToken = o.optionalSecret('session_token');
  if (authType === 'oidc') {
    if (!settings.oidcProviderKey || !settings.oidcProviderIssuer) {
      o.problem('auth_type', '"oidc" needs OIDC_PROVIDER_KEY and OIDC_PROVIDER_ISSUER in the environment');
    }
    return {
      type: 'oidc',
      roleArn: o.requiredString('oidc_role_arn'),
      subject: oidcSubject(o),
      stsEndpoint: o.optionalUrl('oidc_sts_endpoint'),
      audience: o.optionalString('oidc_audience') ?? 'sts.amazonaws.com',
    };
  }
  if (authType !== undefined && authType !== 'static') o.problem('auth_type', `"${authType}" is not one of oidc, static`);
  if (o.has('access_key_id') !== o.has('secret_access_key')) {
    o.problem(o.has('access_key_id') ? 'secret_access_key' : 'access_key_id', 'access_key_id and secret_access_key must be given together');
  }
  if (accessKeyId === undefined || secretAccessKey === undefined) return { type: 'anonymous' };
  return { type: 'static', keys: { accessKeyId, secretAccessKey, sessionToken } };
}

/** The `sub` of the minted JWT: `oidc_subject`, or `s3-proxy` (decisions); never empty. */
function oidcSubject(o: Reader): string {
  const subject = o.optionalString('oidc_subject');
  if (subject === '') o.problem('oidc_subject', 'must not be empty (omit it for the default "s3-proxy")');
  return subject || 's3-proxy';
}

function readServiceAccount(json: string, o: Reader): { clientEmail: string; privateKey: string } | undefined {
  try {
    const key = JSON.parse(json) as { client_email?: unknown; private_key?: unknown };
    if (typeof key.client_email === 'string' && typeof key.private_key === 'string') {
      return { clientEmail: key.client_email, privateKey: key.private_key };
    }
  } catch {
    // reported below
  }
  o.problem('service_account_key', 'must be a service-account JSON key with client_email and private_key');
  return undefined;
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
  for (const issuer of trustedIssuers) if (!isHttpUrl(issuer)) t.problem('trusted_oidc_issuers', `"${issuer}" is not an http(s) URL`);
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

function isHttpUrl(value: string): boolean {
  return /^https?:\/\/[^/\s]+/i.test(value);
}

/** Standard base64 or base64url, as keys are written in either. */
function decodeBase64(text: string): Uint8Array | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return fromBase64(trimmed) ?? fromBase64Url(trimmed.replace(/=+$/, ''));
}

/** Reads one TOML table, recording problems with the table's path and the entry's label. */
class Reader {
  private name?: string;

  constructor(
    private readonly data: Table,
    private readonly where: string,
    private readonly env: Environment,
    private readonly problems: string[],
  ) {}

  label(name: string): void {
    if (name) this.name = name;
  }

  problem(field: string, message: string): void {
    const entry = this.name ? ` "${this.name}"` : '';
    this.problems.push(`${this.where}${entry}: ${this.prefix}${field} ${message}`);
  }

  allowOnly(fields: readonly string[]): void {
    for (const field of Object.keys(this.data)) {
      if (!fields.includes(field)) this.problem(field, `is not a known field (known: ${fields.join(', ')})`);
    }
  }

  tables(field: string): Reader[] {
    const value = this.data[field];
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((v) => !isTable(v))) {
      this.problem(field, `must be an array of tables ([[${field}]])`);
      return [];
    }
    return value.map((v, i) => new Reader(v as Table, `${this.where === 'configuration' ? '' : this.where + '.'}[[${field}]] #${i + 1}`, this.env, this.problems));
  }

  table(field: string): Reader {
    const value = this.data[field];
    if (!isTable(value)) {
      this.problem(field, 'must be a table');
      return new Reader({}, `${this.where}.${field}`, this.env, []);
    }
    const reader = new Reader(value, `${this.where}`, this.env, this.problems);
    reader.name = this.name;
    reader.prefix = `${field}.`;
    return reader;
  }

  private prefix = '';

  has(field: string): boolean {
    return this.data[field] !== undefined;
  }

  private value(field: string): unknown {
    return this.data[field];
  }

  optionalString(field: string): string | undefined {
    const v = this.value(field);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      this.problem(field, 'must be a string');
      return undefined;
    }
    return v;
  }

  requiredString(field: string): string {
    const v = this.optionalString(field);
    if (v === undefined || v === '') {
      if (this.value(field) === undefined || v === '') this.problem(field, 'is required');
      return '';
    }
    return v;
  }

  optionalUrl(field: string): string | undefined {
    const v = this.optionalString(field);
    if (v !== undefined && !isHttpUrl(v)) this.problem(field, `"${v}" is not an http(s) URL`);
    return v?.replace(/\/+$/, '');
  }

  optionalBoolean(field: string): boolean | undefined {
    const v = this.value(field);
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') this.problem(field, 'must be true or false');
    return v === true;
  }

  optionalInteger(field: string): number | undefined {
    const v = this.value(field);
    if (v === undefined) return undefined;
    const n = typeof v === 'bigint' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n)) {
      this.problem(field, 'must be an integer');
      return undefined;
    }
    return n;
  }

  stringArray(field: string): string[] {
    const v = this.value(field);
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
      this.problem(field, 'must be an array of strings');
      return [];
    }
    return v as string[];
  }

  /** A secret written literally or as `{ env = "NAME" }`. */
  optionalSecret(field: string): string | undefined {
    const v = this.value(field);
    if (v === undefined) return undefined;
    if (typeof v === 'string') return v;
    if (isTable(v) && typeof v.env === 'string' && Object.keys(v).length === 1) {
      const resolved = this.env[v.env];
      if (resolved === undefined || resolved === '') {
        this.problem(field, `refers to environment variable ${v.env}, which is not set`);
        return undefined;
      }
      return resolved;
    }
    this.problem(field, 'must be a string or { env = "NAME" }');
    return undefined;
  }

  requiredSecret(field: string): string {
    const v = this.optionalSecret(field);
    if (v === undefined && this.value(field) === undefined) this.problem(field, 'is required');
    return v ?? '';
  }
}

function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
