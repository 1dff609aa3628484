/**
 * `[buckets.backend_options]` per backend type: S3 (static keys, none, or `auth_type = "oidc"`), Azure
 * (account key) and GCS (service-account JSON key), each field validated with its table and entry named.
 */
import type { BackendConfig, S3BackendAuth, Settings } from './types';
import { decodeBase64, type Reader } from './reader';

export function readBackend(type: BackendConfig['type'], o: Reader, settings: Settings): BackendConfig {
  const backendPrefix = o.optionalString('backend_prefix') ?? '';
  if (backendPrefix.startsWith('/')) o.problem('backend_prefix', 'must not start with "/"');
  if (type !== 's3' && o.optionalString('auth_type') !== undefined) {
    o.problem('auth_type', `is only supported for s3 backends; ${type} backends use static credentials`);
  }
  if (type !== 's3' && o.has('request_payer')) o.problem('request_payer', 'is only supported for s3 backends (x-amz-request-payer)');
  if (type === 'azure') {
    o.allowOnly(['account_name', 'container_name', 'access_key', 'endpoint', 'backend_prefix', 'auth_type', 'request_payer']);
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
    o.allowOnly(['bucket_name', 'service_account_key', 'endpoint', 'backend_prefix', 'auth_type', 'request_payer', 'api']);
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
    'auth_type', 'oidc_role_arn', 'oidc_subject', 'oidc_sts_endpoint', 'oidc_audience', 'skip_signature', 'request_payer',
  ]);
  const region = o.optionalString('region') ?? 'us-east-1';
  return {
    type,
    endpoint: o.optionalUrl('endpoint') ?? `https://s3.${region}.amazonaws.com`,
    bucketName: o.optionalString('bucket_name'),
    region,
    backendPrefix,
    auth: readS3Auth(o, settings),
    ...(readRequestPayer(o) ? { requestPayer: 'requester' } : {}),
  };
}

/** `request_payer`: `"requester"` or absent (the bucket's owner pays), the only values S3 knows. */
function readRequestPayer(o: Reader): boolean {
  const payer = o.optionalString('request_payer');
  if (payer !== undefined && payer !== 'requester') o.problem('request_payer', `"${payer}" is not "requester" (omit it for the bucket owner to pay)`);
  return payer === 'requester';
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
