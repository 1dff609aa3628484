import { S3Client } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The real clients the suites drive: aws-cli (both generations on the machine), boto3 (both generations),
 * the JS SDK v3, rclone, restic and curl. A missing client fails the test loudly with the package to install.
 */
export interface Keys {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** aws-cli v1 (pip, default checksums) and v2 (Debian 2.9, no default checksums). */
export const AWS_CLIS = { v1: 'aws', v2: '/usr/bin/aws' } as const;
/** boto3 1.43 (pip; aws-chunked by default) and 1.26 (Debian). */
export const PYTHONS = { 'boto3-new': 'python3', 'boto3-debian': '/usr/bin/python3' } as const;

export function jsClient(endpoint: string, keys?: Keys): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: keys ?? { accessKeyId: '', secretAccessKey: '' },
    ...(keys ? {} : { signer: { sign: async (request) => request } }),
    maxAttempts: 1,
  });
}

function clientEnv(keys: Keys | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_REGION: 'us-east-1',
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    AWS_MAX_ATTEMPTS: '1',
    AWS_EC2_METADATA_DISABLED: 'true',
    PYTHONWARNINGS: 'ignore',
  };
  if (keys) {
    env.AWS_ACCESS_KEY_ID = keys.accessKeyId;
    env.AWS_SECRET_ACCESS_KEY = keys.secretAccessKey;
    if (keys.sessionToken) env.AWS_SESSION_TOKEN = keys.sessionToken;
  }
  return env;
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv, install: string, input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { env, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: number | string }) | null;
      if (e && e.code === 'ENOENT') reject(new Error(`${file} is not installed: ${install}`));
      else resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/**
 * Runs aws-cli against the gateway; anonymous when `keys` is undefined; `configFile`: an aws-cli config.
 * Pass a value a store generated as `--option=value`: argparse takes a separate value beginning with `-`
 * (as one in 64 of RGW's version IDs does) for an option and stops with a usage error.
 */
export function awsCli(cli: keyof typeof AWS_CLIS, endpoint: string, keys: Keys | undefined, args: readonly string[], configFile?: string): Promise<Run> {
  const auth = keys ? [] : ['--no-sign-request'];
  const install = cli === 'v1' ? 'pip install awscli' : 'apt-get install awscli';
  const env = clientEnv(keys);
  if (configFile !== undefined) env.AWS_CONFIG_FILE = configFile;
  return run(AWS_CLIS[cli], ['--endpoint-url', endpoint, ...auth, ...args], env, install);
}

/**
 * Runs a boto3 snippet with `s3` bound to a path-style client for the gateway; the snippet's last
 * expression must be assigned to `result`, which is printed as JSON.
 */
export async function boto3(python: keyof typeof PYTHONS, endpoint: string, keys: Keys | undefined, snippet: string): Promise<unknown> {
  const program = `
import json, sys, boto3, botocore
from botocore.config import Config
from botocore import UNSIGNED
cfg = Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}${keys ? '' : ', signature_version=UNSIGNED'})
s3 = boto3.client('s3', endpoint_url=${JSON.stringify(endpoint)}, region_name='us-east-1', config=cfg)
def error_code(fn):
    try:
        fn()
        return None
    except botocore.exceptions.ClientError as e:
        return e.response['Error']['Code']
result = None
${snippet}
print(json.dumps(result, default=str))
`;
  const install = python === 'boto3-new' ? 'pip install boto3' : 'apt-get install python3-boto3';
  const out = await run(PYTHONS[python], ['-c', program], clientEnv(keys), install);
  if (out.code !== 0) throw new Error(`boto3 (${python}) failed:\n${out.stderr}`);
  const lines = out.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

/**
 * Runs rclone with the gateway as the remote `gw:` (an S3 remote of provider Other, path-style), configured
 * from the environment alone so no rclone.conf is read. Each run tries once (`--retries 1
 * --low-level-retries 1`): a refusal is the answer under test, never something to wait out.
 */
export function rclone(endpoint: string, keys: Keys, args: readonly string[], input?: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    RCLONE_CONFIG: '/dev/null',
    RCLONE_CONFIG_GW_TYPE: 's3',
    RCLONE_CONFIG_GW_PROVIDER: 'Other',
    RCLONE_CONFIG_GW_ENDPOINT: endpoint,
    RCLONE_CONFIG_GW_REGION: 'us-east-1',
    RCLONE_CONFIG_GW_ACCESS_KEY_ID: keys.accessKeyId,
    RCLONE_CONFIG_GW_SECRET_ACCESS_KEY: keys.secretAccessKey,
  };
  return run('rclone', ['--retries', '1', '--low-level-retries', '1', ...args], env, 'apt-get install rclone (Debian package rclone)', input);
}

/** s3cmd against the gateway, path-style, SigV4, from its own configuration file (written into `dir`). */
export function s3cmd(endpoint: string, keys: Keys, dir: string, args: readonly string[]): Promise<Run> {
  const host = new URL(endpoint).host;
  const config = join(dir, `s3cmd-${host.replace(/[^0-9]/g, '')}.cfg`);
  writeFileSync(
    config,
    ['[default]', `access_key = ${keys.accessKeyId}`, `secret_key = ${keys.secretAccessKey}`, `host_base = ${host}`, `host_bucket = ${host}`,
      'use_https = False', 'signature_v2 = False', 'bucket_location = us-east-1', ''].join('\n'),
  );
  return run('s3cmd', ['-c', config, ...args], { PATH: process.env.PATH, HOME: process.env.HOME }, 'apt-get install s3cmd');
}

/**
 * Runs restic (its S3 backend is minio-go, so an S3 client written apart from the AWS SDKs) on the
 * repository `s3:{endpoint}/{path}`, configured from the environment alone, with `password` as the
 * repository's. Over plain HTTP minio-go signs every PUT's body chunk by chunk
 * (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`) and sends its Content-MD5.
 */
export function restic(endpoint: string, keys: Keys, path: string, password: string, args: readonly string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_ACCESS_KEY_ID: keys.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
    RESTIC_REPOSITORY: `s3:${endpoint}/${path}`,
    RESTIC_PASSWORD: password,
  };
  return run('restic', ['--no-cache', ...args], env, 'apt-get install restic (Debian package restic)');
}

/**
 * Runs curl signing with its own SigV4 (`--aws-sigv4`, an implementation apart from the SDKs') for `keys`,
 * with `-s` and `args`; stdout ends with the status when `args` asks for `-w '%{http_code}'`.
 */
export function curlSigned(keys: Keys, args: readonly string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  return run('curl', ['-s', '--aws-sigv4', 'aws:amz:us-east-1:s3', '--user', `${keys.accessKeyId}:${keys.secretAccessKey}`, ...args], env, 'apt-get install curl');
}
