/**
 * `npm run start:web`: the Web Function entry (functions/web-function.ts) in its own process, behind a local
 * Web Function endpoint, for real S3 clients on a laptop and for the test matrix. Reads the same CONFIG_PATH
 * (default proxy.toml), HOST (default 127.0.0.1), PORT (default 8080) and gateway variables as `npm run
 * serve`, passing all but HOST and PORT to the function. Also:
 *   WEB_FUNCTION_DOMAIN   the only Host the endpoint accepts (default: the address it listens on, HOST:PORT)
 *   WEB_FUNCTION_EXPECT   `continue` (default) or `reject`: how `Expect: 100-continue` is answered (see front.ts)
 *   WEB_FUNCTION_TIMEOUT  the request timeout in seconds, 3-900 (default 900)
 * Prints the same `{"message":"gateway listening","url":...}` line, and refuses to start on an invalid
 * configuration (the function's process exits, and so does this one, with its code).
 */
import type { AddressInfo } from 'node:net';
import { InitError, startEnvironment } from './web-local/environment';
import { createWebFunctionFront } from './web-local/front';

function settings(env: NodeJS.ProcessEnv): { expect: 'continue' | 'reject'; timeoutMs: number } {
  const expect = env.WEB_FUNCTION_EXPECT || 'continue';
  if (expect !== 'continue' && expect !== 'reject') throw new InitError(`WEB_FUNCTION_EXPECT must be "continue" or "reject", got "${expect}"`, 1);
  const timeout = Number(env.WEB_FUNCTION_TIMEOUT || 900);
  if (!Number.isInteger(timeout) || timeout < 3 || timeout > 900) throw new InitError(`WEB_FUNCTION_TIMEOUT must be a whole number of seconds from 3 to 900, got "${env.WEB_FUNCTION_TIMEOUT}"`, 1);
  return { expect, timeoutMs: timeout * 1000 };
}

async function main(): Promise<void> {
  const { expect, timeoutMs } = settings(process.env);
  const functionEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['WEB_FUNCTION_DOMAIN', 'WEB_FUNCTION_EXPECT', 'WEB_FUNCTION_TIMEOUT']) delete functionEnv[name];
  const environment = await startEnvironment({ env: functionEnv });
  environment.process.once('exit', (code) => {
    console.error(JSON.stringify({ time: new Date().toISOString(), message: 'the function process exited', code }));
    process.exit(code ?? 1);
  });
  const server = createWebFunctionFront({ target: environment.target, domain: process.env.WEB_FUNCTION_DOMAIN || undefined, expect, timeoutMs });
  server.keepAliveTimeout = 65_000;
  const host = process.env.HOST || '127.0.0.1';
  const port = Number(process.env.PORT || 8080);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  console.error(JSON.stringify({ time: new Date().toISOString(), message: 'gateway listening', url, runtime: 'web function (local endpoint)' }));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      console.error(JSON.stringify({ time: new Date().toISOString(), message: `${signal}: draining connections` }));
      environment.process.removeAllListeners('exit');
      server.close();
      server.closeIdleConnections();
      void environment.stop().then(() => process.exit(0));
    });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(err instanceof InitError ? err.exitCode : 1);
});
