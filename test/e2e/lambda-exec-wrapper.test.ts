import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_SERVER_FLAGS } from '../../functions/node-server';
import { buildBundles } from '../../scripts/build';
import { childrenOf, startGateway } from '../support/gateway';

/**
 * The local Function URL starts the handler as Lambda does when AWS_LAMBDA_EXEC_WRAPPER is set: through the
 * wrapper the function ships with, so the process that answers requests runs with the Node server's V8 flags.
 * Both as `npm run start:lambda` runs it and from the bundle the benchmark runs.
 */
const CONFIG = '[[buckets]]\nname = "b"\nbackend_type = "s3"\nanonymous_access = true\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9"\nbucket_name = "b"\n';
const ENV = { SESSION_TOKEN_KEY: Buffer.alloc(32, 1).toString('base64') };

function readProc(pid: number, file: 'cmdline' | 'environ'): string[] {
  return readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0');
}

async function handlerProcess(bundle: string | false): Promise<{ command: string[]; environment: string[] }> {
  const gateway = await startGateway('lambda', { config: CONFIG, env: ENV, bundle });
  try {
    expect((await fetch(`${gateway.endpoint}/.health`)).status).toBe(200);
    // The launcher's children: the runtime it started, and under tsx its esbuild service.
    const runtimes = childrenOf(gateway.pid).filter((pid) => readProc(pid, 'environ').includes('LAMBDA_LOCAL_RUNTIME=1'));
    expect(runtimes).toHaveLength(1);
    return { command: readProc(runtimes[0], 'cmdline'), environment: readProc(runtimes[0], 'environ') };
  } finally {
    await gateway.stop();
  }
}

describe('local Function URL: the handler is started through the exec wrapper', () => {
  it('GIVEN npm run start:lambda WHEN it serves THEN its handler runs in a node started with the V8 flags', async () => {
    const { command, environment } = await handlerProcess(false);
    expect(command).toEqual(expect.arrayContaining([...NODE_SERVER_FLAGS]));
    expect(environment.find((v) => v.startsWith('AWS_LAMBDA_EXEC_WRAPPER='))).toMatch(/\/functions\/runtime\/lambda\/exec-wrapper\.sh$/);
  }, 60_000);

  it('GIVEN the bundle (dist/lambda-local.js) WHEN it serves THEN it uses the wrapper copied beside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lambda-wrapper-'));
    try {
      const bundles = await buildBundles(dir);
      const { command, environment } = await handlerProcess(bundles['lambda-local']);
      expect(command).toEqual(expect.arrayContaining([...NODE_SERVER_FLAGS, bundles['lambda-local']]));
      expect(environment).toContain(`AWS_LAMBDA_EXEC_WRAPPER=${join(dir, 'exec-wrapper.sh')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
