import { PutObjectCommand } from '@aws-sdk/client-s3';
import { startAzurite, type Azurite } from '../support/azurite';
import type { Keys } from '../support/clients';
import { azuriteOptions, bucketToml, credentialToml, everywhere, gcsEmulatorOptions, s3Options } from '../support/config-toml';
import { startGateway, type RunningGateway, type RuntimeName } from '../support/gateway';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';

/**
 * What the model specs of objects share (range-model, conditional-model, conditional-write-model,
 * integrity-model, object-headers-model): one bucket named `name` on each kind of store, RGW (unless left
 * out), Azurite and the GCS emulator, the virtual buckets `s3`, `azure` and `gcs` over them, and a gateway
 * per runtime over those (`useGatewayOverStores`).
 */
export interface StoreBuckets {
  /** The gateway's `[[buckets]]` for the stores running. */
  readonly toml: string;
  /** Writes `key` into each store directly. */
  put(key: string, body: string | Uint8Array): Promise<void>;
  stop(): Promise<void>;
}

export async function startStoreBuckets(name: string, options: { rgw: boolean } = { rgw: true }): Promise<StoreBuckets> {
  const [rgw, azurite, gcs]: [Rgw | undefined, Azurite, GcsEmulator] = await Promise.all([
    options.rgw ? startRgw() : undefined,
    startAzurite(),
    startGcsEmulator(),
  ]);
  await Promise.all([rgw && createBucket(rgw, name), azurite.createContainer(name)]);
  const direct = rgw && rgwS3Client(rgw);
  const toml = [
    rgw ? bucketToml({ name: 's3', backend_type: 's3' }, s3Options(rgw.endpoint, name, rgw)) : '',
    bucketToml({ name: 'azure', backend_type: 'azure' }, azuriteOptions(azurite.endpoint, name)),
    bucketToml({ name: 'gcs', backend_type: 'gcs' }, gcsEmulatorOptions(gcs.endpoint, name)),
  ].join('\n');
  return {
    toml,
    put: async (key, body) => {
      await direct?.send(new PutObjectCommand({ Bucket: name, Key: key, Body: body }));
      await azurite.putBlob(name, key, body);
      await gcs.upload(name, key, body, 'application/octet-stream');
    },
    stop: async () => {
      direct?.destroy();
      await Promise.all([rgw?.stop(), azurite.stop(), gcs.stop()]);
    },
  };
}

/**
 * A gateway of `runtime` over the stores' buckets for the suite it is called in, `keys` granted `actions`
 * on every bucket: started before the suite's specs, stopped after them. Its endpoint is read in the specs.
 */
export function useGatewayOverStores(runtime: RuntimeName, stores: () => StoreBuckets, keys: Keys, actions: readonly string[]): { readonly endpoint: string } {
  let gw: RunningGateway | undefined;
  beforeAll(async () => {
    const config = [stores().toml, credentialToml(keys, { principal_name: 'model' }, [everywhere(actions)])].join('\n');
    gw = await startGateway(runtime, { config });
  }, 60_000);
  afterAll(() => gw?.stop());
  return {
    get endpoint(): string {
      if (gw === undefined) throw new Error('the gateway is not started: read its endpoint inside a spec');
      return gw.endpoint;
    },
  };
}
