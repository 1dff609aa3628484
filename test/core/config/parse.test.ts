import { ConfigError, parseConfig, type Environment } from '../../../functions/core/config/parse';
import type { AzureBackend, Config, GcsBackend, S3Backend } from '../../../functions/core/config/types';
import { problemsOf } from '../../support/config-problems';

function s3(config: Config, bucket: string): S3Backend {
  const backend = config.buckets.get(bucket)?.backend;
  if (backend?.type !== 's3') throw new Error(`bucket ${bucket} is not an s3 bucket`);
  return backend;
}
function azure(config: Config, bucket: string): AzureBackend {
  const backend = config.buckets.get(bucket)?.backend;
  if (backend?.type !== 'azure') throw new Error(`bucket ${bucket} is not an azure bucket`);
  return backend;
}
function gcs(config: Config, bucket: string): GcsBackend {
  const backend = config.buckets.get(bucket)?.backend;
  if (backend?.type !== 'gcs') throw new Error(`bucket ${bucket} is not a gcs bucket`);
  return backend;
}

/** A bucket table with the given backend options, for tests that care about one option at a time. */
const bucket = (name: string, type: string, options: string): string =>
  `[[buckets]]\nname = "${name}"\nbackend_type = "${type}"\n[buckets.backend_options]\n${options}\n`;

/**
 * A problem about a backend option: the bucket entry, then the option and the message. Some backend-option
 * problems are currently reported without their `backend_options.` table prefix (reported upstream), so the
 * prefix is allowed but not required here.
 */
const optionProblem = (entry: string, field: string, message: string): unknown =>
  expect.stringMatching(new RegExp(`^${escape(entry)}: (backend_options\\.)?${escape(field)} ${escape(message)}$`));
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const SERVICE_ACCOUNT = JSON.stringify({
  type: 'service_account',
  client_email: 'proxy@project.iam.gserviceaccount.com',
  private_key: '-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n',
});

const OIDC_ENV = { OIDC_PROVIDER_KEY: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----', OIDC_PROVIDER_ISSUER: 'https://proxy.example.com/' };

const COMPLETE = `
max_upload_bytes = 1048576

[[buckets]]
name = "public-data"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "http://127.0.0.1:9000/"
bucket_name = "store"
region = "eu-west-1"
access_key_id = "BACKENDKEY"
secret_access_key = { env = "BACKEND_SECRET" }
session_token = "session"
backend_prefix = "public/"
skip_signature = true

[[buckets]]
name = "federated"
backend_type = "objstore"
[buckets.backend_options]
bucket_name = "fed"
auth_type = "oidc"
oidc_role_arn = "arn:aws:iam::000000000000:role/proxy"
oidc_sts_endpoint = "https://sts.eu-west-1.amazonaws.com"

[[buckets]]
name = "blobs"
backend_type = "azure"
[buckets.backend_options]
account_name = "devstoreaccount1"
container_name = "container"
access_key = { env = "AZURE_KEY" }
endpoint = "http://127.0.0.1:10000/devstoreaccount1"
backend_prefix = "v/"

[[buckets]]
name = "blobs-default"
backend_type = "az"
[buckets.backend_options]
account_name = "acct"
container_name = "c"

[[buckets]]
name = "cloud"
backend_type = "gcs"
[buckets.backend_options]
bucket_name = "gbucket"
service_account_key = { env = "GCS_KEY" }
endpoint = "http://127.0.0.1:4443"

[[buckets]]
name = "cloud-default"
backend_type = "gs"
[buckets.backend_options]
bucket_name = "g2"

[[credentials]]
access_key_id = "AKIDEXAMPLE"
secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
principal_name = "ci"
created_at = "2024-05-01T12:00:00Z"
enabled = false
[[credentials.allowed_scopes]]
bucket = "public-data"
prefixes = ["reports/", "logs"]
actions = ["get_object", "head_object", "list_bucket"]
[[credentials.allowed_scopes]]
bucket = "*"
prefixes = []
actions = ["put_object", "delete_object", "get_object_version"]

[[credentials]]
access_key_id = { env = "SECOND_KEY_ID" }
secret_access_key = { env = "SECOND_SECRET" }

[[roles]]
role_id = "arn:aws:iam::000000000000:role/ci"
name = "CI"
trusted_oidc_issuers = ["https://token.actions.githubusercontent.com/"]
required_audiences = ["sts.amazonaws.com"]
subject_conditions = ["repo:org/*"]
max_session_duration_secs = 7200
[[roles.allowed_scopes]]
bucket = "{repository_owner}"
prefixes = ["{repository}/"]
actions = ["get_object", "put_object", "create_multipart_upload", "upload_part", "complete_multipart_upload", "abort_multipart_upload"]
`;

const COMPLETE_ENV: Environment = {
  ...OIDC_ENV,
  BACKEND_SECRET: 'backend-secret',
  AZURE_KEY: 'YXp1cmUta2V5',
  GCS_KEY: SERVICE_ACCOUNT,
  SECOND_KEY_ID: 'AKIDSECOND',
  SECOND_SECRET: 'second-secret',
};

describe('parseConfig: a complete, valid file', () => {
  const config = parseConfig(COMPLETE, COMPLETE_ENV);

  it('reads every bucket under its virtual name', () => {
    expect([...config.buckets.keys()]).toEqual(['public-data', 'federated', 'blobs', 'blobs-default', 'cloud', 'cloud-default']);
    expect(config.buckets.get('public-data')?.anonymousAccess).toBe(true);
    expect(config.buckets.get('federated')?.anonymousAccess).toBe(false);
  });

  it('reads an s3 bucket with static keys, taking a secret from the environment and trimming the endpoint slash', () => {
    expect(s3(config, 'public-data')).toEqual({
      type: 's3',
      endpoint: 'http://127.0.0.1:9000',
      bucketName: 'store',
      region: 'eu-west-1',
      backendPrefix: 'public/',
      auth: { type: 'static', keys: { accessKeyId: 'BACKENDKEY', secretAccessKey: 'backend-secret', sessionToken: 'session' } },
    });
  });

  it('accepts objstore as the s3 backend type and reads OIDC backend auth with its defaults', () => {
    const backend = s3(config, 'federated');
    expect(backend.region).toBe('us-east-1');
    expect(backend.endpoint).toBe('https://s3.us-east-1.amazonaws.com');
    expect(backend.auth).toEqual({
      type: 'oidc',
      roleArn: 'arn:aws:iam::000000000000:role/proxy',
      subject: 's3-proxy',
      stsEndpoint: 'https://sts.eu-west-1.amazonaws.com',
      audience: 'sts.amazonaws.com',
    });
  });

  it('reads an azure bucket with every option, and defaults the endpoint of an az bucket to the public blob service', () => {
    expect(azure(config, 'blobs')).toEqual({
      type: 'azure',
      accountName: 'devstoreaccount1',
      containerName: 'container',
      accessKey: 'YXp1cmUta2V5',
      endpoint: 'http://127.0.0.1:10000/devstoreaccount1',
      backendPrefix: 'v/',
    });
    expect(azure(config, 'blobs-default')).toEqual({
      type: 'azure',
      accountName: 'acct',
      containerName: 'c',
      accessKey: undefined,
      endpoint: 'https://acct.blob.core.windows.net',
      backendPrefix: '',
    });
  });

  it('reads a gcs bucket with its service-account key, and defaults the endpoint of a gs bucket to Google', () => {
    expect(gcs(config, 'cloud')).toEqual({
      type: 'gcs',
      bucketName: 'gbucket',
      serviceAccount: { clientEmail: 'proxy@project.iam.gserviceaccount.com', privateKey: '-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n' },
      endpoint: 'http://127.0.0.1:4443',
      backendPrefix: '',
    });
    expect(gcs(config, 'cloud-default')).toMatchObject({ bucketName: 'g2', serviceAccount: undefined, endpoint: 'https://storage.googleapis.com' });
  });

  it('reads credentials with their nested scopes, keyed by access key id', () => {
    expect(config.credentials.get('AKIDEXAMPLE')).toEqual({
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      principalName: 'ci',
      createdAt: '2024-05-01T12:00:00Z',
      enabled: false,
      scopes: [
        { bucket: 'public-data', prefixes: ['reports/', 'logs'], actions: ['get_object', 'head_object', 'list_bucket'] },
        { bucket: '*', prefixes: [], actions: ['put_object', 'delete_object', 'get_object_version'] },
      ],
    });
  });

  it('resolves both the key id and the secret of a credential from the environment', () => {
    expect(config.credentials.get('AKIDSECOND')).toMatchObject({ accessKeyId: 'AKIDSECOND', secretAccessKey: 'second-secret' });
  });

  it('reads roles with their templated scopes kept verbatim and issuers without a trailing slash', () => {
    expect(config.roles.get('arn:aws:iam::000000000000:role/ci')).toEqual({
      roleId: 'arn:aws:iam::000000000000:role/ci',
      name: 'CI',
      trustedIssuers: ['https://token.actions.githubusercontent.com'],
      requiredAudiences: ['sts.amazonaws.com'],
      subjectConditions: ['repo:org/*'],
      maxSessionDurationSecs: 7200,
      scopes: [
        {
          bucket: '{repository_owner}',
          prefixes: ['{repository}/'],
          actions: ['get_object', 'put_object', 'create_multipart_upload', 'upload_part', 'complete_multipart_upload', 'abort_multipart_upload'],
        },
      ],
    });
  });

  it('reads the process settings from the environment, trimming the issuer slash', () => {
    expect(config.settings).toEqual({
      oidcProviderKey: OIDC_ENV.OIDC_PROVIDER_KEY,
      oidcProviderIssuer: 'https://proxy.example.com',
      maxUploadBytes: 1048576,
    });
  });
});

describe('parseConfig: defaults', () => {
  it('accepts an empty file as a configuration with nothing in it', () => {
    const config = parseConfig('');
    expect(config.buckets.size).toBe(0);
    expect(config.credentials.size).toBe(0);
    expect(config.roles.size).toBe(0);
    expect(config.settings).toEqual({});
  });

  it('gives an s3 bucket region us-east-1, the AWS endpoint of that region, no prefix and no anonymous access', () => {
    const config = parseConfig(bucket('b', 's3', 'bucket_name = "x"'));
    expect(config.buckets.get('b')).toEqual({
      name: 'b',
      anonymousAccess: false,
      backend: { type: 's3', endpoint: 'https://s3.us-east-1.amazonaws.com', bucketName: 'x', region: 'us-east-1', backendPrefix: '', auth: { type: 'anonymous' } },
    });
  });

  it('derives the AWS endpoint from a configured region', () => {
    expect(s3(parseConfig(bucket('b', 's3', 'region = "eu-central-1"')), 'b').endpoint).toBe('https://s3.eu-central-1.amazonaws.com');
  });

  it('uses anonymous backend access when neither backend key is given', () => {
    expect(s3(parseConfig(bucket('b', 's3', 'endpoint = "http://minio:9000"')), 'b').auth).toEqual({ type: 'anonymous' });
  });

  it('treats auth_type = "static" like no auth_type at all', () => {
    const config = parseConfig(bucket('b', 's3', 'auth_type = "static"\naccess_key_id = "k"\nsecret_access_key = "s"'));
    expect(s3(config, 'b').auth).toEqual({ type: 'static', keys: { accessKeyId: 'k', secretAccessKey: 's', sessionToken: undefined } });
  });

  it('reads backend_type case-insensitively', () => {
    expect(parseConfig(bucket('b', 'GCS', 'bucket_name = "g"')).buckets.get('b')?.backend.type).toBe('gcs');
  });

  it('enables a credential unless told otherwise and names its principal after its key id', () => {
    const config = parseConfig('[[credentials]]\naccess_key_id = "AK"\nsecret_access_key = "s"\n');
    expect(config.credentials.get('AK')).toEqual({
      accessKeyId: 'AK',
      secretAccessKey: 's',
      principalName: 'AK',
      createdAt: undefined,
      enabled: true,
      scopes: [],
    });
  });

  it('gives a role a one-hour maximum session, its id as name, and no issuers, audiences or subjects', () => {
    expect(parseConfig('[[roles]]\nrole_id = "r"\n').roles.get('r')).toEqual({
      roleId: 'r',
      name: 'r',
      trustedIssuers: [],
      requiredAudiences: [],
      subjectConditions: [],
      maxSessionDurationSecs: 3600,
      scopes: [],
    });
  });

  it('reads a scope without prefixes as covering the whole bucket (an empty list)', () => {
    const config = parseConfig('[[credentials]]\naccess_key_id = "AK"\nsecret_access_key = "s"\n[[credentials.allowed_scopes]]\nbucket = "b"\nactions = ["get_object"]\n');
    expect(config.credentials.get('AK')?.scopes).toEqual([{ bucket: 'b', prefixes: [], actions: ['get_object'] }]);
  });

  it('accepts OIDC backend auth with a custom subject and audience', () => {
    const config = parseConfig(bucket('b', 's3', 'auth_type = "oidc"\noidc_role_arn = "arn:r"\noidc_subject = "me"\noidc_audience = "aud"'), OIDC_ENV);
    expect(s3(config, 'b').auth).toEqual({ type: 'oidc', roleArn: 'arn:r', subject: 'me', stsEndpoint: undefined, audience: 'aud' });
  });

  it('accepts a role whose maximum session is exactly 900 seconds', () => {
    expect(parseConfig('[[roles]]\nrole_id = "r"\nmax_session_duration_secs = 900\n').roles.get('r')?.maxSessionDurationSecs).toBe(900);
  });
});

describe('parseConfig: secrets', () => {
  it('reads a secret written literally', () => {
    const config = parseConfig(bucket('b', 'azure', 'account_name = "a"\ncontainer_name = "c"\naccess_key = "literal"'));
    expect(azure(config, 'b').accessKey).toBe('literal');
  });

  it('reads a secret written as { env = "NAME" } from that variable', () => {
    const config = parseConfig(bucket('b', 'azure', 'account_name = "a"\ncontainer_name = "c"\naccess_key = { env = "AZ_KEY" }'), { AZ_KEY: 'from-env' });
    expect(azure(config, 'b').accessKey).toBe('from-env');
  });

  it('refuses a secret whose environment variable is unset, naming the variable, the entry and the field', () => {
    expect(problemsOf('[[credentials]]\naccess_key_id = "AK"\nsecret_access_key = { env = "MISSING_SECRET" }\n')).toEqual([
      '[[credentials]] #1 "AK": secret_access_key refers to environment variable MISSING_SECRET, which is not set',
    ]);
  });

  it('names the backend option whose environment variable is unset', () => {
    expect(problemsOf(bucket('b', 's3', 'access_key_id = "k"\nsecret_access_key = { env = "MISSING_SECRET" }'))).toContain(
      '[[buckets]] #1 "b": backend_options.secret_access_key refers to environment variable MISSING_SECRET, which is not set',
    );
  });

  it('treats an environment variable set to the empty string as unset', () => {
    expect(problemsOf(bucket('b', 'gcs', 'bucket_name = "g"\nservice_account_key = { env = "EMPTY" }'), { EMPTY: '' })).toEqual([
      '[[buckets]] #1 "b": backend_options.service_account_key refers to environment variable EMPTY, which is not set',
    ]);
  });

  it('refuses a secret that is neither a string nor { env = "NAME" }', () => {
    const problems = problemsOf('[[credentials]]\naccess_key_id = "AK"\nsecret_access_key = { env = "X", default = "y" }\n');
    expect(problems).toEqual(['[[credentials]] #1 "AK": secret_access_key must be a string or { env = "NAME" }']);
  });

  it('never repeats a secret value in a problem', () => {
    const problems = problemsOf(
      bucket('b', 's3', 'access_key_id = "k"\nsecret_access_key = "TOPSECRETVALUE"\nauth_type = "kerberos"') +
        bucket('g', 'gcs', 'bucket_name = "g"\nservice_account_key = "{ \\"private_key\\": \\"TOPSECRETKEY\\" }"'),
    );
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).not.toMatch(/TOPSECRET/);
  });

  it('refuses a gcs service-account key that is not a JSON key with client_email and private_key', () => {
    expect(problemsOf(bucket('g', 'gcs', 'bucket_name = "g"\nservice_account_key = "not json"'))).toEqual([
      optionProblem('[[buckets]] #1 "g"', 'service_account_key', 'must be a service-account JSON key with client_email and private_key'),
    ]);
  });
});

describe('parseConfig: every problem is reported at once, each naming its table, entry and field', () => {
  it('collects problems from buckets, credentials, roles, scopes and the environment in one error', () => {
    const toml = `
[[buckets]]
name = "b1"
backend_type = "dropbox"
[buckets.backend_options]

[[buckets]]
name = "b2"
backend_type = "azure"
[buckets.backend_options]
account_name = "a"

[[credentials]]
access_key_id = "AK1"
[[credentials.allowed_scopes]]
bucket = "b1"
actions = ["get_object", "read_everything"]

[[roles]]
role_id = "r1"
max_session_duration_secs = 600
`;
    const problems = problemsOf(toml, { SESSION_TOKEN_KEY: 'too-short' });
    expect(problems).toEqual([
      'environment SESSION_TOKEN_KEY: must be the base64 encoding of exactly 32 bytes',
      '[[buckets]] #1 "b1": backend_type "dropbox" is not one of s3 (objstore), azure (az), gcs (gs)',
      '[[buckets]] #2 "b2": backend_options.container_name is required',
      '[[credentials]] #1 "AK1": secret_access_key is required',
      expect.stringMatching(/^\[\[credentials\]\] #1\.\[\[allowed_scopes\]\] #1: actions "read_everything" is not one of get_object, /),
      '[[roles]] #1 "r1": max_session_duration_secs must be between 900 and 43200 seconds',
    ]);
  });

  it('renders every problem in the error message, one per line', () => {
    let error: unknown;
    try {
      parseConfig('[[roles]]\nrole_id = "r"\nmax_session_duration_secs = 10\n[[roles]]\nname = "nameless"\n');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).name).toBe('ConfigError');
    expect((error as ConfigError).message).toBe(
      'Invalid configuration:\n' +
        '  - [[roles]] #1 "r": max_session_duration_secs must be between 900 and 43200 seconds\n' +
        '  - [[roles]] #2: role_id is required',
    );
  });

  it('names an entry by its position when it has no name', () => {
    expect(problemsOf('[[buckets]]\nbackend_type = "s3"\n[buckets.backend_options]\n')).toEqual(['[[buckets]] #1: name is required']);
  });

  it('names a nested scope by its own position under its parent entry', () => {
    const problems = problemsOf(
      '[[roles]]\nrole_id = "r"\n[[roles.allowed_scopes]]\nbucket = "a"\n[[roles.allowed_scopes]]\nprefixes = ["x/"]\n',
    );
    expect(problems).toEqual(['[[roles]] #1.[[allowed_scopes]] #2: bucket is required']);
  });
});

describe('parseConfig: unknown fields', () => {
  it('refuses an unknown top-level field, listing the known ones', () => {
    expect(problemsOf('bucket = "typo"\n')).toEqual([
      'configuration: bucket is not a known field (known: buckets, credentials, roles, max_upload_bytes, path_mapping, cors_rules, sts_cors, virtual_host_domains, sigv2_presigned_urls)',
    ]);
  });

  it('refuses an unknown field in a bucket, a backend, a credential, a role and a scope', () => {
    const problems = problemsOf(
      bucket('b', 's3', 'endpiont = "http://x"') +
        '[buckets.extra]\n' +
        '[[credentials]]\naccess_key_id = "AK"\nsecret_access_key = "s"\nenable = true\n' +
        '[[credentials.allowed_scopes]]\nbucket = "b"\nprefix = ["x"]\n' +
        '[[roles]]\nrole_id = "r"\nmax_session_duration = 3600\n',
    );
    expect(problems).toEqual([
      expect.stringMatching(/^\[\[buckets\]\] #1: extra is not a known field \(known: name, /),
      expect.stringMatching(/^\[\[buckets\]\] #1 "b": backend_options\.endpiont is not a known field \(known: endpoint, /),
      expect.stringMatching(/^\[\[credentials\]\] #1: enable is not a known field/),
      expect.stringMatching(/^\[\[credentials\]\] #1\.\[\[allowed_scopes\]\] #1: prefix is not a known field \(known: bucket, prefixes, actions\)$/),
      expect.stringMatching(/^\[\[roles\]\] #1: max_session_duration is not a known field/),
    ]);
  });

  it('refuses s3-only options on an azure backend and azure options on a gcs backend', () => {
    const problems = problemsOf(
      bucket('a', 'azure', 'account_name = "a"\ncontainer_name = "c"\nregion = "x"') + bucket('g', 'gcs', 'bucket_name = "g"\naccount_name = "a"'),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^\[\[buckets\]\] #1 "a": backend_options\.region is not a known field/),
      expect.stringMatching(/^\[\[buckets\]\] #2 "g": backend_options\.account_name is not a known field/),
    ]);
  });
});

describe('parseConfig: wrong types', () => {
  it('names the field and the type it must have', () => {
    const problems = problemsOf(
      '[[buckets]]\nname = 7\nbackend_type = "s3"\nanonymous_access = "yes"\n[buckets.backend_options]\nregion = 1\n' +
        '[[credentials]]\naccess_key_id = "AK"\nsecret_access_key = "s"\nenabled = 1\nprincipal_name = ["x"]\n' +
        '[[roles]]\nrole_id = "r"\nmax_session_duration_secs = "3600"\nrequired_audiences = "sts.amazonaws.com"\n' +
        '[[roles.allowed_scopes]]\nbucket = "b"\nactions = "get_object"\n',
    );
    expect(problems).toEqual([
      '[[buckets]] #1: name must be a string',
      '[[buckets]] #1: backend_options.region must be a string',
      '[[buckets]] #1: anonymous_access must be true or false',
      '[[credentials]] #1 "AK": principal_name must be a string',
      '[[credentials]] #1 "AK": enabled must be true or false',
      '[[roles]] #1 "r": max_session_duration_secs must be an integer',
      '[[roles]] #1 "r": required_audiences must be an array of strings',
      '[[roles]] #1.[[allowed_scopes]] #1: actions must be an array of strings',
    ]);
  });

  it('refuses a fractional integer', () => {
    expect(problemsOf('[[roles]]\nrole_id = "r"\nmax_session_duration_secs = 3600.5\n')).toEqual([
      '[[roles]] #1 "r": max_session_duration_secs must be an integer',
    ]);
  });

  it('refuses a single [buckets] table where an array of tables is expected', () => {
    expect(problemsOf('[buckets]\nname = "b"\n')).toEqual(['configuration: buckets must be an array of tables ([[buckets]])']);
  });

  it('refuses a bucket without backend_options, or with backend_options that is not a table', () => {
    expect(problemsOf('[[buckets]]\nname = "b"\nbackend_type = "s3"\n')).toEqual(['[[buckets]] #1 "b": backend_options must be a table']);
    expect(problemsOf('[[buckets]]\nname = "b"\nbackend_type = "s3"\nbackend_options = "x"\n')).toEqual([
      '[[buckets]] #1 "b": backend_options must be a table',
    ]);
  });

  it('refuses an endpoint, an STS endpoint and an issuer that are not URLs', () => {
    const problems = problemsOf(
      bucket('b', 's3', 'endpoint = "minio:9000"\nauth_type = "oidc"\noidc_role_arn = "arn:r"\noidc_sts_endpoint = "sts"') +
        '[[roles]]\nrole_id = "r"\ntrusted_oidc_issuers = ["token.actions.githubusercontent.com"]\n',
      OIDC_ENV,
    );
    expect(problems).toEqual([
      '[[buckets]] #1 "b": backend_options.endpoint "minio:9000" is not an http(s) URL',
      '[[buckets]] #1 "b": backend_options.oidc_sts_endpoint "sts" is not an http(s) URL',
      '[[roles]] #1 "r": trusted_oidc_issuers "token.actions.githubusercontent.com" must be an https:// URL, as the key cache fetches an issuer\'s keys over https only',
    ]);
  });

  it('refuses a created_at that is not a timestamp', () => {
    expect(problemsOf('[[credentials]]\naccess_key_id = "AK"\nsecret_access_key = "s"\ncreated_at = "yesterday"\n')).toEqual([
      '[[credentials]] #1 "AK": created_at must be an ISO 8601 timestamp',
    ]);
  });
});

describe('parseConfig: buckets', () => {
  it('refuses an unknown backend_type, naming the bucket and the accepted values', () => {
    expect(problemsOf(bucket('b', 'ftp', ''))).toEqual(['[[buckets]] #1 "b": backend_type "ftp" is not one of s3 (objstore), azure (az), gcs (gs)']);
  });

  it('refuses a bucket without backend_type', () => {
    expect(problemsOf('[[buckets]]\nname = "b"\n[buckets.backend_options]\n')).toEqual(['[[buckets]] #1 "b": backend_type is required']);
  });

  it('refuses a bucket name that is not a single path segment', () => {
    expect(problemsOf(bucket('a/b', 's3', '') + bucket('a b', 's3', '') + bucket('..', 's3', ''))).toEqual([
      '[[buckets]] #1 "a/b": name must be one path segment without "/", spaces or control characters',
      '[[buckets]] #2 "a b": name must be one path segment without "/", spaces or control characters',
      '[[buckets]] #3 "..": name must not be "." or ".."',
    ]);
  });

  it('refuses a bucket name starting with a dot: /.health, /.sts and /.well-known are the gateway\'s own paths', () => {
    expect(problemsOf(bucket('.health', 's3', '') + bucket('.sts', 's3', '') + bucket('a.b', 's3', ''))).toEqual([
      '[[buckets]] #1 ".health": name must not start with "." (paths starting with a dot are the gateway\'s own, like /.health)',
      '[[buckets]] #2 ".sts": name must not start with "." (paths starting with a dot are the gateway\'s own, like /.health)',
    ]);
  });

  it('refuses two buckets with the same name', () => {
    expect(problemsOf(bucket('b', 's3', '') + bucket('b', 'gcs', 'bucket_name = "g"'))).toEqual([
      '[[buckets]] "b": name is used by more than one entry',
    ]);
  });

  it('refuses a backend_prefix starting with a slash', () => {
    expect(problemsOf(bucket('b', 's3', 'backend_prefix = "/x/"'))).toEqual([
      optionProblem('[[buckets]] #1 "b"', 'backend_prefix', 'must not start with "/"'),
    ]);
  });

  it('refuses an access_key_id without a secret_access_key, and the reverse', () => {
    expect(problemsOf(bucket('a', 's3', 'access_key_id = "k"') + bucket('b', 's3', 'secret_access_key = "s"'))).toEqual([
      optionProblem('[[buckets]] #1 "a"', 'secret_access_key', 'access_key_id and secret_access_key must be given together'),
      optionProblem('[[buckets]] #2 "b"', 'access_key_id', 'access_key_id and secret_access_key must be given together'),
    ]);
  });

  it('refuses an auth_type other than oidc or static', () => {
    expect(problemsOf(bucket('b', 's3', 'auth_type = "iam"'))).toEqual([optionProblem('[[buckets]] #1 "b"', 'auth_type', '"iam" is not one of oidc, static')]);
  });

  it('refuses an azure access_key that is not base64, and api = "json" with a gcs service-account key', () => {
    expect(problemsOf(bucket('a', 'azure', 'account_name = "a"\ncontainer_name = "c"\naccess_key = "not base64!"'))).toEqual([
      '[[buckets]] #1 "a": backend_options.access_key must be the base64 account key',
    ]);
    const key = JSON.stringify(JSON.stringify({ client_email: 'e', private_key: 'k' }));
    expect(problemsOf(bucket('g', 'gcs', `bucket_name = "g"\napi = "json"\nservice_account_key = ${key}`))).toEqual([
      expect.stringMatching(/^\[\[buckets\]\] #1 "g": backend_options\.api "json" sends unsigned requests/),
    ]);
    expect(problemsOf(bucket('g', 'gcs', 'bucket_name = "g"\napi = "grpc"'))).toEqual(['[[buckets]] #1 "g": backend_options.api "grpc" is not one of xml, json']);
  });

  it('refuses auth_type = "oidc" on azure and gcs buckets', () => {
    const problems = problemsOf(
      bucket('a', 'azure', 'account_name = "a"\ncontainer_name = "c"\nauth_type = "oidc"') + bucket('g', 'gs', 'bucket_name = "g"\nauth_type = "oidc"'),
      OIDC_ENV,
    );
    expect(problems).toEqual([
      optionProblem('[[buckets]] #1 "a"', 'auth_type', 'is only supported for s3 backends; azure backends use static credentials'),
      optionProblem('[[buckets]] #2 "g"', 'auth_type', 'is only supported for s3 backends; gcs backends use static credentials'),
    ]);
  });

  it.each([
    ['neither variable', {}],
    ['only OIDC_PROVIDER_KEY', { OIDC_PROVIDER_KEY: OIDC_ENV.OIDC_PROVIDER_KEY }],
    ['only OIDC_PROVIDER_ISSUER', { OIDC_PROVIDER_ISSUER: OIDC_ENV.OIDC_PROVIDER_ISSUER }],
  ])('refuses OIDC backend auth when the environment has %s', (_, env) => {
    expect(problemsOf(bucket('b', 's3', 'auth_type = "oidc"\noidc_role_arn = "arn:r"'), env)).toEqual([
      optionProblem('[[buckets]] #1 "b"', 'auth_type', '"oidc" needs OIDC_PROVIDER_KEY and OIDC_PROVIDER_ISSUER in the environment'),
    ]);
  });

  it('GIVEN request_payer = "requester" on an s3 bucket THEN its backend requests are to carry it; without it the bucket owner pays', () => {
    const config = parseConfig(bucket('paid', 's3', 'bucket_name = "p"\nrequest_payer = "requester"') + bucket('owned', 'objstore', 'bucket_name = "o"'));
    expect(s3(config, 'paid').requestPayer).toBe('requester');
    expect(s3(config, 'owned')).not.toHaveProperty('requestPayer');
  });

  it.each(['"BucketOwner"', '"Requester"', '""'])('refuses request_payer = %s, naming the one value', (value) => {
    expect(problemsOf(bucket('b', 's3', `request_payer = ${value}`))).toEqual([
      `[[buckets]] #1 "b": backend_options.request_payer ${value} is not "requester" (omit it for the bucket owner to pay)`,
    ]);
  });

  it('refuses a request_payer that is not a string', () => {
    expect(problemsOf(bucket('b', 's3', 'request_payer = true'))).toEqual(['[[buckets]] #1 "b": backend_options.request_payer must be a string']);
  });

  it('refuses request_payer on azure and gcs buckets, reported with the other problems', () => {
    const problems = problemsOf(
      bucket('a', 'azure', 'account_name = "a"\ncontainer_name = "c"\nrequest_payer = "requester"') +
        bucket('g', 'gs', 'bucket_name = "g"\nrequest_payer = "requester"') +
        bucket('x', 's3', 'region = 1'),
    );
    expect(problems).toEqual([
      '[[buckets]] #1 "a": backend_options.request_payer is only supported for s3 backends (x-amz-request-payer)',
      '[[buckets]] #2 "g": backend_options.request_payer is only supported for s3 backends (x-amz-request-payer)',
      '[[buckets]] #3 "x": backend_options.region must be a string',
    ]);
  });

  it('refuses OIDC backend auth without oidc_role_arn', () => {
    expect(problemsOf(bucket('b', 's3', 'auth_type = "oidc"'), OIDC_ENV)).toEqual(['[[buckets]] #1 "b": backend_options.oidc_role_arn is required']);
  });
});

describe('parseConfig: credentials, roles and scopes', () => {
  it('refuses two credentials with the same access key id, even when one comes from the environment', () => {
    const toml =
      '[[credentials]]\naccess_key_id = "AK"\nsecret_access_key = "a"\n[[credentials]]\naccess_key_id = { env = "KEY" }\nsecret_access_key = "b"\n';
    expect(problemsOf(toml, { KEY: 'AK' })).toEqual(['[[credentials]] "AK": access_key_id is used by more than one entry']);
  });

  it('refuses a credential without an access key id', () => {
    expect(problemsOf('[[credentials]]\nsecret_access_key = "s"\n')).toEqual(['[[credentials]] #1: access_key_id is required']);
  });

  it('refuses two roles with the same role id', () => {
    expect(problemsOf('[[roles]]\nrole_id = "r"\n[[roles]]\nrole_id = "r"\n')).toEqual(['[[roles]] "r": role_id is used by more than one entry']);
  });

  it.each([899, 0, -1, 43201])('refuses a role whose max_session_duration_secs is %i', (secs) => {
    expect(problemsOf(`[[roles]]\nrole_id = "r"\nmax_session_duration_secs = ${secs}\n`)).toEqual([
      '[[roles]] #1 "r": max_session_duration_secs must be between 900 and 43200 seconds',
    ]);
  });

  it('GIVEN a role trusting an http:// issuer beside an https:// one WHEN the file loads THEN the http one is a problem naming the role and the field, reported with the others', () => {
    const problems = problemsOf(
      '[[roles]]\nrole_id = "r"\ntrusted_oidc_issuers = ["https://token.actions.githubusercontent.com", "http://issuer.example/"]\n' +
        '[[roles]]\nrole_id = "short"\nmax_session_duration_secs = 10\n',
    );
    expect(problems).toEqual([
      '[[roles]] #1 "r": trusted_oidc_issuers "http://issuer.example/" must be an https:// URL, as the key cache fetches an issuer\'s keys over https only',
      '[[roles]] #2 "short": max_session_duration_secs must be between 900 and 43200 seconds',
    ]);
  });

  it('refuses an action that is not one of the known actions, listing them', () => {
    const problems = problemsOf('[[credentials]]\naccess_key_id = "AK"\nsecret_access_key = "s"\n[[credentials.allowed_scopes]]\nbucket = "b"\nactions = ["GetObject"]\n');
    expect(problems).toEqual([
      '[[credentials]] #1.[[allowed_scopes]] #1: actions "GetObject" is not one of get_object, get_object_version, head_object, put_object, ' +
        'delete_object, list_bucket, create_multipart_upload, upload_part, complete_multipart_upload, abort_multipart_upload, ' +
        'list_bucket_versions, delete_object_version, get_object_tagging, put_object_tagging, delete_object_tagging, ' +
        'put_object_acl, put_object_retention, put_object_legal_hold, bypass_governance_retention',
    ]);
  });

  it('refuses a scope without a bucket', () => {
    expect(problemsOf('[[credentials]]\naccess_key_id = "AK"\nsecret_access_key = "s"\n[[credentials.allowed_scopes]]\nactions = ["get_object"]\n')).toEqual([
      '[[credentials]] #1.[[allowed_scopes]] #1: bucket is required',
    ]);
  });
});

describe('parseConfig: environment settings', () => {
  const key32 = Buffer.alloc(32, 7);

  it('reads SESSION_TOKEN_KEY as the base64 of 32 bytes', () => {
    expect(parseConfig('', { SESSION_TOKEN_KEY: key32.toString('base64') }).settings.sessionTokenKey).toEqual(new Uint8Array(key32));
  });

  it('also reads SESSION_TOKEN_KEY written in base64url', () => {
    const bytes = Buffer.alloc(32, 0xfb);
    expect(parseConfig('', { SESSION_TOKEN_KEY: bytes.toString('base64url') }).settings.sessionTokenKey).toEqual(new Uint8Array(bytes));
  });

  it.each([
    ['16 bytes', Buffer.alloc(16, 1).toString('base64')],
    ['33 bytes', Buffer.alloc(33, 1).toString('base64')],
    ['text that is not base64', 'this is not base64!'],
  ])('refuses a SESSION_TOKEN_KEY of %s', (_, value) => {
    expect(problemsOf('', { SESSION_TOKEN_KEY: value })).toEqual(['environment SESSION_TOKEN_KEY: must be the base64 encoding of exactly 32 bytes']);
  });

  it('ignores an empty SESSION_TOKEN_KEY', () => {
    expect(parseConfig('', { SESSION_TOKEN_KEY: '' }).settings.sessionTokenKey).toBeUndefined();
  });

  it('refuses an OIDC_PROVIDER_ISSUER that is not an http(s) URL', () => {
    expect(problemsOf('', { OIDC_PROVIDER_ISSUER: 'proxy.example.com' })).toEqual(['environment OIDC_PROVIDER_ISSUER: must be an http(s) URL']);
  });

  it('reads MAX_UPLOAD_BYTES from the environment', () => {
    expect(parseConfig('', { MAX_UPLOAD_BYTES: '104857600' }).settings.maxUploadBytes).toBe(104857600);
  });

  it('reads max_upload_bytes from the file', () => {
    expect(parseConfig('max_upload_bytes = 5000\n').settings.maxUploadBytes).toBe(5000);
  });

  it('lets MAX_UPLOAD_BYTES in the environment override max_upload_bytes in the file', () => {
    expect(parseConfig('max_upload_bytes = 5000\n', { MAX_UPLOAD_BYTES: '10' }).settings.maxUploadBytes).toBe(10);
  });

  it('has no upload limit when neither gives one', () => {
    expect(parseConfig('', { MAX_UPLOAD_BYTES: '' }).settings.maxUploadBytes).toBeUndefined();
  });

  it.each(['0', '-5', '1.5', '10MB', 'abc'])('refuses MAX_UPLOAD_BYTES=%s', (value) => {
    expect(problemsOf('', { MAX_UPLOAD_BYTES: value })).toEqual(['environment MAX_UPLOAD_BYTES: must be a positive integer (bytes)']);
  });

  it('refuses a max_upload_bytes in the file that is not a positive integer', () => {
    expect(problemsOf('max_upload_bytes = 0\n')).toEqual(['configuration: max_upload_bytes must be a positive integer (bytes)']);
    expect(problemsOf('max_upload_bytes = "1MB"\n')).toEqual(['configuration: max_upload_bytes must be an integer']);
  });
});

describe('parseConfig: TOML syntax', () => {
  it('reports a syntax error as the single problem', () => {
    const problems = problemsOf('[[buckets]]\nname = "unterminated\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^TOML syntax: /);
    expect(problems[0]).not.toContain('\n');
  });

  it('reports a table defined twice as a syntax error', () => {
    expect(problemsOf('[a]\nx = 1\n[a]\ny = 2\n')[0]).toMatch(/^TOML syntax: /);
  });
});

describe('parseConfig: problems found by review', () => {
  it.each(['constructor', '__proto__', 'toString'])('refuses backend_type %s, which only an inherited property would match', (type) => {
    expect(problemsOf(bucket('b', type, 'endpoint = "http://x"'))).toEqual([
      `[[buckets]] #1 "b": backend_type "${type}" is not one of s3 (objstore), azure (az), gcs (gs)`,
    ]);
  });

  it('names backend option problems under backend_options', () => {
    expect(problemsOf(bucket('b', 's3', 'auth_type = "iam"'))).toEqual([
      '[[buckets]] #1 "b": backend_options.auth_type "iam" is not one of oidc, static',
    ]);
  });

  it('reports only the unset variable for a backend secret given by environment', () => {
    expect(problemsOf(bucket('b', 's3', 'access_key_id = "k"\nsecret_access_key = { env = "MISSING_SECRET" }'))).toEqual([
      '[[buckets]] #1 "b": backend_options.secret_access_key refers to environment variable MISSING_SECRET, which is not set',
    ]);
  });
});
