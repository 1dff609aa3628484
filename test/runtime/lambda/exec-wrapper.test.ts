import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { NODE_SERVER_FLAGS } from '../../../functions/node-server';

/**
 * The Lambda function's AWS_LAMBDA_EXEC_WRAPPER: Lambda runs it with the runtime's command line (node, node's
 * options, the runtime's entry), and it must start that same command with the Node server's V8 flags added.
 */
const WRAPPER = join(__dirname, '..', '..', '..', 'functions', 'runtime', 'lambda', 'exec-wrapper.sh');

describe('Lambda exec wrapper', () => {
  it('GIVEN the wrapper THEN it is executable, as Lambda runs it directly', () => {
    expect(() => accessSync(WRAPPER, constants.X_OK)).not.toThrow();
  });

  it("GIVEN the runtime's command line THEN node starts with exactly the Node server's flags added, the options and arguments kept in order", () => {
    const script = 'process.stdout.write(JSON.stringify({ execArgv: process.execArgv, argv: process.argv.slice(1) }))';
    const out = execFileSync(WRAPPER, [process.execPath, '--no-warnings', '-e', script, 'a b', '--c'], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ execArgv: [...NODE_SERVER_FLAGS, '--no-warnings', '-e', script], argv: ['a b', '--c'] });
  });
});
