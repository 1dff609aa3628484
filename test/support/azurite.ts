import { startDaemon } from '../../scripts/daemon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AZURE_API_VERSION } from '../../functions/core/backends/azure';
import { fromBase64 } from '../../functions/core/bytes';
import { sharedKeyAuthorization } from '../../functions/core/backends/azure/shared-key';
import { encodeKey } from '../../functions/core/keys';

/**
 * Azurite 3.35 (the last release for Node 20), blob service only, in a child process on a free loopback
 * port with its own temp dir. `--skipApiVersionCheck` because the gateway's `x-ms-version` may be newer than
 * the build knows; `--disableTelemetry` because it would phone home. Not `--loose`: unsupported headers stay
 * errors, so the tests catch requests real Azure would refuse.
 */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
/** The well-known development key (public; Azurite's default). */
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface Azurite {
  /** Blob service URL including the account, e.g. `http://127.0.0.1:PORT/devstoreaccount1`. */
  readonly endpoint: string;
  /** A Shared Key signed request straight to Azurite (seeding and inspection, bypassing the gateway). */
  request(method: string, path: string, options?: { headers?: Record<string, string>; body?: string | Uint8Array; query?: string }): Promise<Response>;
  createContainer(name: string, publicAccess?: 'container' | 'blob'): Promise<void>;
  putBlob(container: string, name: string, body: string | Uint8Array, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

export async function startAzurite(): Promise<Azurite> {
  const dir = mkdtempSync(join(tmpdir(), 'azurite-'));
  const main = require.resolve('azurite/dist/src/blob/main.js');
  const daemon = await startDaemon(
    [main, '--blobHost', '127.0.0.1', '--blobPort', '0', '--location', dir, '--skipApiVersionCheck', '--disableTelemetry'],
    { name: 'Azurite', listening: /listens on http:\/\/127\.0\.0\.1:(\d+)/, timeoutMs: 20_000 },
  );
  const port = daemon.port;
  const endpoint = `http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`;
  const key = fromBase64(AZURITE_KEY) as Uint8Array;

  const request: Azurite['request'] = async (method, path, options = {}) => {
    const url = `${endpoint}${path}${options.query ? `?${options.query}` : ''}`;
    // Bytes, not a string: fetch would add an unsigned `content-type: text/plain` to a string body.
    const body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
    const length = body === undefined ? 0 : body.length;
    const headers: Record<string, string> = {
      'x-ms-version': AZURE_API_VERSION,
      'x-ms-date': new Date().toUTCString(),
      ...(method === 'PUT' ? { 'content-length': String(length) } : {}),
      ...options.headers,
    };
    headers.authorization = await sharedKeyAuthorization(AZURITE_ACCOUNT, key, { method, url, headers });
    return fetch(url, { method, headers, body });
  };

  return {
    endpoint,
    request,
    createContainer: async (name, publicAccess) => {
      const res = await request('PUT', `/${name}`, { query: 'restype=container', headers: publicAccess ? { 'x-ms-blob-public-access': publicAccess } : {} });
      if (res.status !== 201) throw new Error(`creating container ${name}: ${res.status} ${await res.text()}`);
    },
    putBlob: async (container, name, body, headers = {}) => {
      const res = await request('PUT', `/${container}/${encodeKey(name)}`, { body, headers: { 'x-ms-blob-type': 'BlockBlob', ...headers } });
      if (res.status !== 201) throw new Error(`putting ${container}/${name}: ${res.status} ${await res.text()}`);
      return res;
    },
    stop: async () => {
      await daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
