import type { S3Client } from '@aws-sdk/client-s3';
import { jsClient, type Keys } from '../support/clients';
import { bucketToml, credentialToml, everywhere, s3Options, type TomlFields } from '../support/config-toml';
import { startGateway, type RunningGateway, type RuntimeName } from '../support/gateway';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import { ADMIN } from './fixtures';

/**
 * What the suites of versions, part copies, tags and rclone share (issue 20): one Ceph RGW with versioning
 * on and a second storage class (STANDARD_IA, so a copy can change an object's class), and a gateway per
 * runtime exposing it as virtual buckets, with keys that hold the actions added beyond
 * the specification and keys that do not.
 *
 * Virtual buckets: `vers` and `copies` (RGW buckets of the same names, versioned), `tenant` (RGW `copies`
 * under `tenant-a/`). Keys: `ADMIN` holds every action; `SPEC` the specification's ten actions everywhere,
 * none of the added ones; `MINE` lists versions and reads (versions too) of `mine` in `vers` (the key `mine`
 * and keys under `mine/`).
 */
export interface OpsBackends {
  readonly rgw: Rgw;
  /** A direct client to seed and inspect RGW. */
  readonly direct: S3Client;
  stop(): Promise<void>;
}

export const SPEC_ACTIONS = [
  'get_object', 'get_object_version', 'head_object', 'put_object', 'delete_object', 'list_bucket',
  'create_multipart_upload', 'upload_part', 'complete_multipart_upload', 'abort_multipart_upload',
] as const;
export const ADDED_ACTIONS = ['list_bucket_versions', 'delete_object_version', 'get_object_tagging', 'put_object_tagging', 'delete_object_tagging'] as const;

/** The specification's actions everywhere, and none of the ones added beyond it. */
export const SPEC: Keys = { accessKeyId: 'SPECKEY0000000000000', secretAccessKey: 'spec/secret/key/00000000000000000000000' };
/** In `vers`: lists versions and reads them, of `mine` only (the key and keys under `mine/`). */
export const MINE: Keys = { accessKeyId: 'MINEKEY0000000000000', secretAccessKey: 'mine/secret/key/00000000000000000000000' };

export async function startOpsBackends(): Promise<OpsBackends> {
  const rgw = await startRgw({ storageClasses: ['STANDARD_IA'] });
  await Promise.all([createBucket(rgw, 'vers', { versioning: true }), createBucket(rgw, 'copies', { versioning: true })]);
  const direct = rgwS3Client(rgw);
  return {
    rgw,
    direct,
    stop: async () => {
      direct.destroy();
      await rgw.stop();
    },
  };
}

/** The gateway configuration; `extra` adds buckets (e.g. one behind a recording hop). */
export function opsConfig(b: OpsBackends, extra = ''): string {
  const bucket = (name: string, backendBucket: string, more: TomlFields = {}): string =>
    bucketToml({ name, backend_type: 's3' }, s3Options(b.rgw.endpoint, backendBucket, b.rgw, more));
  return [
    bucket('vers', 'vers'),
    bucket('copies', 'copies'),
    bucket('tenant', 'copies', { backend_prefix: 'tenant-a/' }),
    extra,
    credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere([...SPEC_ACTIONS, ...ADDED_ACTIONS])]),
    credentialToml(SPEC, { principal_name: 'spec' }, [everywhere(SPEC_ACTIONS)]),
    credentialToml(MINE, { principal_name: 'mine' }, [{ bucket: 'vers', prefixes: ['mine'], actions: ['list_bucket_versions', 'get_object', 'get_object_version'] }]),
  ].join('\n');
}

/** A gateway on one runtime with `opsConfig`, and JS SDK clients for ADMIN and SPEC. */
export interface OpsGateway {
  readonly gw: RunningGateway;
  readonly admin: S3Client;
  readonly spec: S3Client;
  stop(): Promise<void>;
}

export async function startOpsGateway(runtime: RuntimeName, backends: OpsBackends, extra = ''): Promise<OpsGateway> {
  const gw = await startGateway(runtime, { config: opsConfig(backends, extra) });
  const admin = jsClient(gw.endpoint, ADMIN);
  const spec = jsClient(gw.endpoint, SPEC);
  return {
    gw,
    admin,
    spec,
    stop: async () => {
      admin.destroy();
      spec.destroy();
      await gw.stop();
    },
  };
}
