/** The validated configuration. Built once at start-up by `parseConfig`; the core only ever reads it. */

export const ACTIONS = [
  'get_object',
  'get_object_version',
  'head_object',
  'put_object',
  'delete_object',
  'list_bucket',
  'create_multipart_upload',
  'upload_part',
  'complete_multipart_upload',
  'abort_multipart_upload',
  // Beyond the specification (decisions.md, "Authorization"): never implied by another action, never anonymous.
  'list_bucket_versions',
  'delete_object_version',
  'get_object_tagging',
  'put_object_tagging',
  'delete_object_tagging',
  // Needed beside a write's own action when it carries the header that does this (decisions.md,
  // "Authorization"; AWS asks the same: docs/authorization.md).
  'put_object_acl',
  'put_object_retention',
  'put_object_legal_hold',
  'bypass_governance_retention',
] as const;

export type Action = (typeof ACTIONS)[number];

/** A grant: a bucket (`*` for all), key prefixes (empty for the whole bucket) and actions. */
export interface Scope {
  readonly bucket: string;
  readonly prefixes: readonly string[];
  readonly actions: readonly Action[];
}

export interface Credential {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly principalName: string;
  readonly createdAt?: string;
  readonly enabled: boolean;
  readonly scopes: readonly Scope[];
}

export interface Role {
  readonly roleId: string;
  readonly name: string;
  readonly trustedIssuers: readonly string[];
  readonly requiredAudiences: readonly string[];
  readonly subjectConditions: readonly string[];
  readonly maxSessionDurationSecs: number;
  /** Scopes whose bucket and prefixes may hold `{claim}` templates, resolved when credentials are minted. */
  readonly scopes: readonly Scope[];
}

export interface StaticKeys {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** How the gateway authenticates to an S3 backend. */
export type S3BackendAuth =
  | { readonly type: 'static'; readonly keys: StaticKeys }
  | { readonly type: 'anonymous' }
  | {
      readonly type: 'oidc';
      readonly roleArn: string;
      readonly subject: string;
      readonly stsEndpoint?: string;
      readonly audience: string;
    };

export interface S3Backend {
  readonly type: 's3';
  /** Endpoint URL without a trailing slash, e.g. `http://127.0.0.1:9000`. */
  readonly endpoint: string;
  readonly bucketName?: string;
  readonly region: string;
  /** Key prefix inside the backend bucket; empty when the virtual bucket maps onto the whole bucket. */
  readonly backendPrefix: string;
  readonly auth: S3BackendAuth;
  /**
   * `request_payer = "requester"`: every backend request of the bucket carries `x-amz-request-payer:
   * requester`, signed, so the gateway's backend account pays for a requester-pays bucket. Absent: the
   * bucket's owner pays and the header is never sent (a client's is never passed on).
   */
  readonly requestPayer?: 'requester';
}

export interface AzureBackend {
  readonly type: 'azure';
  readonly accountName: string;
  readonly containerName: string;
  readonly accessKey?: string;
  /** Blob service URL, e.g. `http://127.0.0.1:10000/devstoreaccount1`. */
  readonly endpoint: string;
  readonly backendPrefix: string;
}

export interface GcsBackend {
  readonly type: 'gcs';
  readonly bucketName: string;
  /** The parsed service-account JSON key, when given. */
  readonly serviceAccount?: { readonly clientEmail: string; readonly privateKey: string };
  readonly endpoint: string;
  /**
   * Which Cloud Storage API the gateway speaks: the XML API with V4 signed URLs (absent: the default, for
   * real GCS) or, with `json`, the JSON API unsigned (emulators without the XML API, such as firebase-tools').
   */
  readonly api?: 'xml' | 'json';
  readonly backendPrefix: string;
}

export type BackendConfig = S3Backend | AzureBackend | GcsBackend;

/** Methods a CORS rule may allow: S3's five. */
export const CORS_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'] as const;
export type CorsMethod = (typeof CORS_METHODS)[number];

/**
 * One CORS rule, as S3's CORSRule: origins and request headers may each hold one `*` wildcard; names of
 * headers are compared case-insensitively.
 */
export interface CorsRule {
  readonly allowedOrigins: readonly string[];
  readonly allowedMethods: readonly CorsMethod[];
  /** Headers a preflight may ask for (`Access-Control-Request-Headers`); lower-case. */
  readonly allowedHeaders: readonly string[];
  /** Response headers a page may read (`Access-Control-Expose-Headers`). */
  readonly exposeHeaders: readonly string[];
  /** How long a browser may cache the preflight's answer (`Access-Control-Max-Age`). */
  readonly maxAgeSeconds?: number;
}

export interface Bucket {
  readonly name: string;
  readonly anonymousAccess: boolean;
  readonly backend: BackendConfig;
  /** `[[buckets.cors_rules]]`: when present, this bucket's CORS rules replace the gateway-wide ones. */
  readonly corsRules?: readonly CorsRule[];
}

/** Process-wide settings that come from the environment rather than the TOML file. */
export interface Settings {
  /** 32-byte AES key sealing STS session tokens. */
  readonly sessionTokenKey?: Uint8Array;
  /** PEM RSA private key (PKCS#8 or PKCS#1) the gateway signs its backend JWTs with. */
  readonly oidcProviderKey?: string;
  /** The gateway's public URL as an identity provider, without a trailing slash. */
  readonly oidcProviderIssuer?: string;
  /** PEM certificate (chain, leaf first) for `oidcProviderKey`; published as `x5c` (Ceph RGW needs it). */
  readonly oidcProviderCert?: string;
  /** PEM key (private or public) still published in the JWKS during a key rotation; never signs. */
  readonly oidcProviderPreviousKey?: string;
  /** PEM certificate for `oidcProviderPreviousKey`. */
  readonly oidcProviderPreviousCert?: string;
  /** DurationSeconds asked of the token service for backend credentials; unset: the service's default. */
  readonly oidcSessionDurationSeconds?: number;
  /** How long before expiry cached backend credentials are renewed (default 60). */
  readonly oidcRefreshAheadSeconds?: number;
  /** Largest declared request body accepted for PutObject, UploadPart and DeleteObjects. */
  readonly maxUploadBytes?: number;
}

/**
 * `[path_mapping]`: the first `segments` path segments name one virtual bucket, joined by `separator`, so
 * `/{account}/{repo}/{key}` is served from the virtual bucket `account:repo` (segments = 2, separator ":").
 * Clients see the first segment as their bucket and the other mapped segments as the start of the key.
 */
export interface PathMapping {
  readonly segments: number;
  readonly separator: string;
}

/** What the gateway answers browsers and other origins (`[[cors_rules]]`, `sts_cors`). */
export interface CorsConfig {
  /** Gateway-wide rules: for buckets without their own, ListBuckets, and (with `sts`) the STS endpoint. */
  readonly rules: readonly CorsRule[];
  /** Whether STS requests get CORS answers from `rules` too. */
  readonly sts: boolean;
}

export interface Config {
  readonly buckets: ReadonlyMap<string, Bucket>;
  /** `[[cors_rules]]` and `sts_cors`; absent when neither is configured. */
  readonly cors?: CorsConfig;
  /**
   * `virtual_host_domains`: the gateway's own domain names (lower-case). A request whose Host is
   * `{bucket}.{domain}` addresses bucket `{bucket}` (virtual-hosted style); the bare domain serves
   * ListBuckets and STS. Absent or empty: every request is path-style.
   */
  readonly virtualHostDomains?: readonly string[];
  /**
   * `sigv2_presigned_urls`: false refuses SigV2 query authentication (`AWSAccessKeyId`, `Expires`,
   * `Signature`) and SigV2 form policies; absent or true accepts links for GetObject and HeadObject only,
   * and form policies as SigV4 ones.
   */
  readonly sigv2PresignedUrls?: boolean;
  /** Present when the deployment maps client paths onto virtual buckets (core/path-mapping.ts). */
  readonly pathMapping?: PathMapping;
  readonly credentials: ReadonlyMap<string, Credential>;
  readonly roles: ReadonlyMap<string, Role>;
  readonly settings: Settings;
}
