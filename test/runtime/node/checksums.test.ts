import crypto from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { importHmacKey } from '../../../functions/core/bytes';
import { Crc32, streamDigest, useNativeCrc32, useNativeHash } from '../../../functions/core/checksums';
import { chunkSignature } from '../../../functions/core/payload/aws-chunked/signatures';
import { parseConfig } from '../../../functions/core/config/parse';
import { Gateway } from '../../../functions/core/gateway';
import { serve } from '../../../functions/node-server';
import { nodeBackend } from '../../../functions/runtime/node/backend';
import { nodeCrc32, nodeHash } from '../../../functions/runtime/node/checksums';
import { installAwsLambda } from '../../../scripts/lambda-local/awslambda';

/**
 * The Node runtimes verify CRC32 trailers with zlib's native CRC instead of the core's tables, and signed
 * SHA-256 payloads, signed aws-chunked chunks (and SHA-1, SHA-256 and MD5 checksums) with node:crypto instead
 * of TypeScript.
 */
const CONFIG = '[[buckets]]\nname = "b"\nbackend_type = "s3"\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9"\nbucket_name = "b"\n';

describe('Node checksums', () => {
  let spy: jest.SpyInstance;
  let hashSpy: jest.SpyInstance;

  beforeEach(() => {
    useNativeCrc32(undefined);
    useNativeHash(undefined);
    spy = jest.spyOn(zlib, 'crc32');
    hashSpy = jest.spyOn(crypto, 'createHash');
  });

  afterEach(() => {
    spy.mockRestore();
    hashSpy.mockRestore();
    useNativeCrc32(undefined);
    useNativeHash(undefined);
  });

  /** A streamed body's digest, base64. */
  async function streamed(algorithm: 'sha256' | 'sha1' | 'md5', data: Uint8Array): Promise<string> {
    const digest = streamDigest(algorithm);
    digest.update(data);
    return Buffer.from(await digest.digest()).toString('base64');
  }

  /** Asserts both native digests are in use: a CRC-32 through zlib, a SHA-256 through node:crypto. */
  async function expectNativeDigests(): Promise<void> {
    spy.mockClear();
    hashSpy.mockClear();
    expect(crc('hello')).toBe(0x3610a686);
    expect(spy).toHaveBeenCalled();
    expect(await streamed('sha256', new TextEncoder().encode('hello'))).toBe('LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=');
    expect(hashSpy).toHaveBeenCalledWith('sha256');
  }

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

  it('GIVEN a gateway built with the Node hash THEN streamed SHA-256, SHA-1 and MD5 digests go through node:crypto, with the same values', async () => {
    const data = crypto.randomBytes(100_000);
    const typescript = await Promise.all((['sha256', 'sha1', 'md5'] as const).map((algorithm) => streamed(algorithm, data)));
    expect(hashSpy).not.toHaveBeenCalled();
    new Gateway(parseConfig(CONFIG), { client: nodeBackend().client, hash: nodeHash() });
    expect(await Promise.all((['sha256', 'sha1', 'md5'] as const).map((algorithm) => streamed(algorithm, data)))).toEqual(typescript);
    expect(hashSpy.mock.calls).toEqual([['sha256'], ['sha1'], ['md5']]);
  });

  it('GIVEN a gateway built with the Node hash THEN a signed aws-chunked chunk is hashed by node:crypto, with the same signature', async () => {
    const seed = { signature: 'f'.repeat(64), signingKey: importHmacKey(crypto.randomBytes(32)), scope: '20261207/us-east-1/s3/aws4_request', amzDate: '20261207T120000Z' };
    const data = crypto.randomBytes(64 * 1024);
    const typescript = await chunkSignature(seed, seed.signature, data);
    expect(hashSpy).not.toHaveBeenCalled();
    new Gateway(parseConfig(CONFIG), { client: nodeBackend().client, hash: nodeHash() });
    expect(await chunkSignature(seed, seed.signature, data)).toBe(typescript);
    expect(hashSpy.mock.calls).toEqual([['sha256']]);
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
    await expectNativeDigests();
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
    await expectNativeDigests();
  });
});
