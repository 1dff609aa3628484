import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { Crc32, useNativeCrc32 } from '../../../functions/core/checksums';
import { parseConfig } from '../../../functions/core/config/parse';
import { Gateway } from '../../../functions/core/gateway';
import { serve } from '../../../functions/node-server';
import { nodeBackend } from '../../../functions/runtime/node/backend';
import { nodeCrc32 } from '../../../functions/runtime/node/checksums';
import { installAwsLambda } from '../../../scripts/lambda-local/awslambda';

/** The Node runtimes verify CRC32 trailers with zlib's native CRC instead of the core's tables. */
const CONFIG = '[[buckets]]\nname = "b"\nbackend_type = "s3"\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9"\nbucket_name = "b"\n';

describe('Node checksums', () => {
  let spy: jest.SpyInstance;

  beforeEach(() => {
    useNativeCrc32(undefined);
    spy = jest.spyOn(zlib, 'crc32');
  });

  afterEach(() => {
    spy.mockRestore();
    useNativeCrc32(undefined);
  });

  function crc(text: string): number {
    const digest = new Crc32();
    digest.update(new TextEncoder().encode(text));
    return digest.value();
  }

  it('GIVEN a gateway built with the Node CRC-32 THEN CRC32 digests go through zlib.crc32, with the same values', () => {
    expect(crc('123456789')).toBe(0xcbf43926);
    expect(spy).not.toHaveBeenCalled();
    new Gateway(parseConfig(CONFIG), { client: nodeBackend().client, crc32: nodeCrc32() });
    expect(crc('123456789')).toBe(0xcbf43926);
    expect(spy).toHaveBeenCalled();
  });

  /** A minimal configuration file for the entries, removed after `use`. */
  async function withConfig(use: (env: Record<string, string>) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'node-checksums-'));
    const config = join(dir, 'proxy.toml');
    writeFileSync(config, CONFIG);
    try {
      await use({ CONFIG_PATH: config, SESSION_TOKEN_KEY: Buffer.alloc(32, 1).toString('base64') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('GIVEN the Node server starts THEN it has installed them', async () => {
    await withConfig(async (env) => {
      const server = await serve({ ...env, PORT: '0' });
      await server.close();
    });
    crc('hello');
    expect(spy).toHaveBeenCalled();
  });

  it('GIVEN the Lambda handler cold-starts THEN it has installed them', async () => {
    installAwsLambda();
    const { coldStart } = (await import('../../../functions/lambda-handler')) as typeof import('../../../functions/lambda-handler');
    await withConfig(async (env) => {
      Object.assign(process.env, env);
      try {
        await coldStart();
      } finally {
        for (const name of Object.keys(env)) delete process.env[name];
      }
    });
    crc('hello');
    expect(spy).toHaveBeenCalled();
  });
});
