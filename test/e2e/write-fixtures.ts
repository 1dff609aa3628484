import { GetObjectCommand, HeadObjectCommand, ListObjectVersionsCommand, type S3Client } from '@aws-sdk/client-s3';
import { jsClient, type Keys } from '../support/clients';
import { MULTIPART_ACTIONS, bucketToml, credentialToml, rgwOptions } from '../support/config-toml';
import { startGateway, type RunningGateway, type RuntimeName } from '../support/gateway';
import { ADMIN, codeOf, gatewayConfig, gatewayEnv, type Backends } from './fixtures';

/**
 * What the write suites add to the shared fixtures: a key with narrow write grants, extra virtual buckets,
 * and helpers to prove what a failed write left behind.
 */

/**
 * In `strict`: writes and deletes under `uploads/`, reads of `uploads/` and `readable/`, deletes of `trash/`.
 * In `versioned`: reads without versions and writes. In `tenant`: everything.
 */
export const WRITER: Keys = { accessKeyId: 'WRITERKEY00000000000', secretAccessKey: 'writer/secret/key/000000000000000000000' };

/**
 * The shared configuration plus `WRITER`, `nobucket` (RGW endpoint without bucket_name: no copies) and
 * `elsewhere` (the `data` bucket through another spelling of the endpoint's region: a different region).
 */
export function writeConfig(b: Backends): string {
  // Tags may be set with a write (`x-amz-tagging` needs put_object_tagging beside put_object).
  const everything = ['get_object', 'head_object', 'put_object', 'put_object_tagging', 'delete_object', 'list_bucket', ...MULTIPART_ACTIONS];
  return [
    gatewayConfig(b),
    bucketToml({ name: 'nobucket', backend_type: 's3' }, { ...rgwOptions(b.rgw, 'data'), bucket_name: undefined }),
    bucketToml({ name: 'elsewhere', backend_type: 's3' }, { ...rgwOptions(b.rgw, 'data'), region: 'eu-west-1' }),
    credentialToml(WRITER, { principal_name: 'writer' }, [
      { bucket: 'strict', prefixes: ['uploads/'], actions: everything },
      { bucket: 'strict', prefixes: ['readable/'], actions: ['get_object', 'head_object'] },
      { bucket: 'strict', prefixes: ['trash/'], actions: ['delete_object'] },
      { bucket: 'versioned', actions: ['get_object', 'head_object', 'put_object', 'list_bucket'] },
      { bucket: 'tenant', actions: everything },
    ]),
  ].join('\n');
}

/** A gateway on one runtime with `writeConfig`, and SDK clients for ADMIN and WRITER. */
export interface WriteGateway {
  readonly gw: RunningGateway;
  readonly admin: S3Client;
  readonly writer: S3Client;
}

/**
 * Starts a write gateway before the enclosing suite's specs and stops it after them. The handle's fields
 * are read inside specs, once the gateway runs; `backends` is a thunk because the caller starts them in its
 * own beforeAll.
 */
export function useWriteGateway(runtime: RuntimeName, backends: () => Backends): WriteGateway {
  let running: WriteGateway | undefined;
  beforeAll(async () => {
    const gw = await startGateway(runtime, { config: writeConfig(backends()), env: gatewayEnv(backends()) });
    running = { gw, admin: jsClient(gw.endpoint, ADMIN), writer: jsClient(gw.endpoint, WRITER) };
  }, 60_000);
  afterAll(async () => {
    running?.admin.destroy();
    running?.writer.destroy();
    await running?.gw.stop();
  });
  const started = (): WriteGateway => {
    if (running === undefined) throw new Error('the write gateway is used before its beforeAll ran');
    return running;
  };
  return {
    get gw() { return started().gw; },
    get admin() { return started().admin; },
    get writer() { return started().writer; },
  };
}

/** Whether `key` exists (HEAD 200), read directly from the backend. */
export async function exists(client: S3Client, bucket: string, key: string): Promise<boolean> {
  return (await codeOf(client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })))) === undefined;
}

export async function readBytes(client: S3Client, bucket: string, key: string): Promise<Buffer> {
  const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from((await out.Body?.transformToByteArray()) ?? []);
}

/** Version ids of `key` in a versioned backend bucket, newest first. */
export async function versionsOf(client: S3Client, bucket: string, key: string): Promise<string[]> {
  const out = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
  return (out.Versions ?? []).filter((v) => v.Key === key).map((v) => v.VersionId ?? '');
}
