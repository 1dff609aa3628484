import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * How Lambda's Node.js runtime starts a function whose AWS_LAMBDA_EXEC_WRAPPER is set: it runs the wrapper
 * with its own command line (node, node's options, the runtime's entry), and the wrapper execs node with
 * whatever it adds. The local Function URL does the same with this script in the runtime's place, so the
 * handler runs in a process started through the wrapper the function ships with.
 */

/** Set in the process the wrapper starts: the local runtime, which serves the handler. */
export const RUNTIME_MARK = 'LAMBDA_LOCAL_RUNTIME';

/** The wrapper's name in the function's bundle, and beside the local bundles in dist/. */
export const EXEC_WRAPPER_NAME = 'exec-wrapper.sh';

/** The wrapper beside this bundle (dist/), or in the source tree when running the TypeScript. */
export function execWrapperPath(dir: string): string {
  const candidates = [join(dir, EXEC_WRAPPER_NAME), resolve(dir, '..', 'functions', 'runtime', 'lambda', EXEC_WRAPPER_NAME)];
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) throw new Error(`the Lambda exec wrapper is missing (looked at ${candidates.join(', ')})`);
  return found;
}

/**
 * Starts `script` again through the wrapper, marked as the runtime, and lives as long as it does: signals
 * are passed on (the runtime drains once however many it gets) and its exit code becomes this one's.
 */
export function runThroughWrapper(wrapper: string, script: string): void {
  const child = spawn(wrapper, [process.execPath, ...process.execArgv, script], {
    stdio: 'inherit',
    env: { ...process.env, AWS_LAMBDA_EXEC_WRAPPER: wrapper, [RUNTIME_MARK]: '1' },
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => child.kill(signal));
  child.once('error', (err) => {
    console.error(`cannot start the Lambda exec wrapper ${wrapper}: ${err.message}`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
}
