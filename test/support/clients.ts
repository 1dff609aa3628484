import { S3Client } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The real clients the suites drive: aws-cli (both generations on the machine), boto3 (both generations),
 * the JS SDK v3, rclone, restic, s3cmd and curl. A missing client fails the test loudly with the package to install,
 * and so does an aws-cli or boto3 of another generation than the one a spec names (`GENERATIONS`).
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
/** boto3 of the current generation (pip; aws-chunked with a CRC32 trailer by default) and 1.26 (Debian). */
export const PYTHONS = { 'boto3-new': 'python3', 'boto3-debian': '/usr/bin/python3' } as const;

export type Generation = keyof typeof AWS_CLIS | keyof typeof PYTHONS;

/** `name/1.2.3` tokens of a version line, as [major, minor, patch] by name. */
type Versions = ReadonlyMap<string, readonly number[]>;

/**
 * What each generation a spec names must be, and where to get it. botocore 1.36 (aws-cli 1.37, boto3 1.36)
 * and aws-cli 2.23 turned on default checksums (CRC32 headers, aws-chunked trailers on streamed bodies):
 * that is the line between the two generations. Debian 12 has aws-cli 2.9 (`awscli`) and boto3 1.26 with
 * botocore 1.29 (`python3-boto3`); the current generation comes from pip, which is not installed by .ci/run
 * (PyPI cannot be reached from these machines: CONTRIBUTING.md), so a machine without it fails here.
 */
const GENERATIONS: Readonly<Record<Generation, { readonly meant: string; readonly fits: (v: Versions) => boolean; readonly install: string }>> = {
  v1: {
    meant: 'aws-cli v1 with default checksums (1.37 or later, botocore 1.36 or later)',
    fits: (v) => v.get('aws-cli')?.[0] === 1 && atLeast(v.get('botocore'), 1, 36),
    install: "pip install 'awscli>=1.37' (from PyPI, so that `aws` on PATH is v1)",
  },
  v2: {
    meant: "aws-cli v2 without default checksums (before 2.23: Debian 12's 2.9)",
    fits: (v) => v.get('aws-cli')?.[0] === 2 && !atLeast(v.get('aws-cli'), 2, 23),
    install: 'apt-get install awscli (Debian 12)',
  },
  'boto3-new': {
    meant: 'boto3 with default checksums (botocore 1.36 or later)',
    fits: (v) => v.has('boto3') && atLeast(v.get('botocore'), 1, 36),
    install: "pip install 'boto3>=1.36' (from PyPI, for the python3 on PATH)",
  },
  'boto3-debian': {
    meant: "boto3 without default checksums (botocore before 1.36: Debian 12's boto3 1.26)",
    fits: (v) => v.has('boto3') && v.has('botocore') && !atLeast(v.get('botocore'), 1, 36),
    install: 'apt-get install python3-boto3 (Debian 12)',
  },
};

function atLeast(version: readonly number[] | undefined, major: number, minor: number): boolean {
  return version !== undefined && (version[0]! > major || (version[0] === major && version[1]! >= minor));
}

const checked = new Map<Generation, Promise<void>>();

/**
 * Settles once `generation`'s version was read (once per process) and names it on stdout; rejects, naming
 * what was found and what to install, when it is not the generation the spec drives. `awsCli` and `boto3`
 * call it; a spec that runs `AWS_CLIS` or `PYTHONS` itself calls it first.
 */
export function requireGeneration(generation: Generation): Promise<void> {
  let check = checked.get(generation);
  if (check === undefined) {
    check = readGeneration(generation);
    checked.set(generation, check);
  }
  return check;
}

async function readGeneration(generation: Generation): Promise<void> {
  const { meant, fits, install } = GENERATIONS[generation];
  const isCli = generation === 'v1' || generation === 'v2';
  const file = isCli ? AWS_CLIS[generation] : PYTHONS[generation];
  const probe = isCli ? ['--version'] : ['-c', "import boto3, botocore; print('boto3/' + boto3.__version__ + ' botocore/' + botocore.__version__)"];
  const out = await run(file, probe, { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONWARNINGS: 'ignore' }, install);
  const line = `${out.stdout}${out.stderr}`.trim().split('\n')[0] ?? '';
  const versions: Versions = new Map([...line.matchAll(/([\w-]+)\/(\d+)\.(\d+)\.(\d+)/g)].map((m) => [m[1]!, [Number(m[2]), Number(m[3]), Number(m[4])]]));
  if (out.code !== 0 || !fits(versions)) {
    const found = out.code === 0 ? line : `\`${[file, ...probe].join(' ')}\` failed: ${out.stderr.trim().split('\n').pop() ?? ''}`;
    throw new Error(`"${generation}" must be ${meant}; ${file} has ${found}. Install it: ${install}`);
  }
  const named = ['aws-cli', 'boto3', 'botocore'].filter((name) => versions.has(name)).map((name) => `${name}/${versions.get(name)!.join('.')}`);
  process.stdout.write(`[clients] ${generation} is ${named.join(' ')} (${file})\n`);
}

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
export async function awsCli(cli: keyof typeof AWS_CLIS, endpoint: string, keys: Keys | undefined, args: readonly string[], configFile?: string): Promise<Run> {
  await requireGeneration(cli);
  const auth = keys ? [] : ['--no-sign-request'];
  const env = clientEnv(keys);
  if (configFile !== undefined) env.AWS_CONFIG_FILE = configFile;
  return run(AWS_CLIS[cli], ['--endpoint-url', endpoint, ...auth, ...args], env, GENERATIONS[cli].install);
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
  await requireGeneration(python);
  const out = await run(PYTHONS[python], ['-c', program], clientEnv(keys), GENERATIONS[python].install);
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
 * Runs s3cmd against the gateway (path-style, SigV4, plain HTTP) from a configuration file of its own, so no
 * ~/.s3cfg is read. s3cmd checks every upload by the ETag answered (an MD5 it compares with the file's) and
 * retries a mismatch.
 */
export async function s3cmd(endpoint: string, keys: Keys, args: readonly string[]): Promise<Run> {
  const host = new URL(endpoint).host;
  const dir = mkdtempSync(join(tmpdir(), 's3cmd-'));
  try {
    const config = join(dir, 's3cfg');
    writeFileSync(
      config,
      ['[default]', `access_key = ${keys.accessKeyId}`, `secret_key = ${keys.secretAccessKey}`, `host_base = ${host}`, `host_bucket = ${host}`,
        'use_https = False', 'signature_v2 = False', 'bucket_location = us-east-1', ''].join('\n'),
    );
    return await run('s3cmd', ['-c', config, ...args], { PATH: process.env.PATH, HOME: dir }, 'apt-get install s3cmd (Debian package s3cmd)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs curl signing with its own SigV4 (`--aws-sigv4`, an implementation apart from the SDKs') for `keys`,
 * with `-s` and `args`; stdout ends with the status when `args` asks for `-w '%{http_code}'`.
 */
export function curlSigned(keys: Keys, args: readonly string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  return run('curl', ['-s', '--aws-sigv4', 'aws:amz:us-east-1:s3', '--user', `${keys.accessKeyId}:${keys.secretAccessKey}`, ...args], env, 'apt-get install curl');
}
