/**
 * `npm run start:lambda`: the Lambda handler behind a local Function URL, for real S3 clients on a laptop and
 * for the test matrix. Reads the same CONFIG_PATH (default proxy.toml), HOST (default 127.0.0.1), PORT
 * (default 8080) and gateway variables as `npm run serve`; NAME_PARAMETER variables read from SSM as on
 * Lambda (set AWS_REGION, and AWS_ENDPOINT_URL_SSM for a local SSM). Prints the same
 * `{"message":"gateway listening","url":...}` line, and refuses to start on an invalid configuration.
 * As on Lambda, the handler runs in a node started through the function's exec wrapper (its V8 flags): this
 * process starts that one and waits for it.
 */
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../functions/core/config/parse';
import { processEnvironment, readLambdaSettings, readListenSettings } from '../functions/runtime/shared/settings';
import { installAwsLambda } from './lambda-local/awslambda';
import { execWrapperPath, RUNTIME_MARK, runThroughWrapper } from './lambda-local/exec-wrapper';
import { createFunctionUrlServer } from './lambda-local/function-url';

async function main(): Promise<void> {
  if (process.env[RUNTIME_MARK] === undefined) return runThroughWrapper(execWrapperPath(__dirname), __filename);
  // The runtime defines the global before it loads the handler module, which uses it at load time.
  installAwsLambda();
  const { host, port } = readListenSettings(processEnvironment());
  const lambda = await import('../functions/lambda-handler');
  // Lambda would fail the first invocation; locally the front refuses to start, like the Node server.
  await lambda.coldStart();
  // The front's wait for a stalled body follows the gateway's idle timeout here (on AWS: the platform's own).
  const server = createFunctionUrlServer(lambda.handler, { bodyIdleTimeoutMs: readLambdaSettings(processEnvironment()).idleTimeoutMs });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  console.error(JSON.stringify({ time: new Date().toISOString(), message: 'gateway listening', url, runtime: 'lambda (local Function URL)' }));
  // The terminal's SIGINT reaches this process and, passed on, again from the launcher: drain once.
  let draining = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (draining) return;
      draining = true;
      console.error(JSON.stringify({ time: new Date().toISOString(), message: `${signal}: draining connections` }));
      server.close(() => process.exit(0));
      server.closeIdleConnections();
    });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err instanceof Error ? err.message : err);
  process.exit(1);
});
