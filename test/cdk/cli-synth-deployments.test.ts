import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** `-c deployment=` picks the shape `npm run synth` (and `cdk deploy`) builds, on a machine with no AWS account. */
const ROOT = resolve(__dirname, '../..');

function synth(out: string, ...context: string[]): Promise<{ code: number; output: string }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'home-')), CDK_DISABLE_VERSION_CHECK: '1' };
  const args = ['run', 'synth', '--silent', '--', '--output', out, '--quiet', ...context.flatMap((c) => ['-c', c])];
  return new Promise((resolvePromise) => {
    execFile('npm', args, { cwd: ROOT, env, timeout: 240_000 }, (err, stdout, stderr) => resolvePromise({ code: err ? 1 : 0, output: stdout + stderr }));
  });
}

let out: string;
beforeEach(() => (out = mkdtempSync(join(tmpdir(), 'cdk-out-'))));
afterEach(() => rmSync(out, { recursive: true, force: true }));

it('GIVEN no AWS credentials WHEN npm run synth -c deployment=web-function THEN the CLI writes a template with a nodejs24.x web function behind an ApplicationManaged endpoint', async () => {
  const run = await synth(out, 'deployment=web-function');
  expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ code: 0, output: '' });
  const template = readdirSync(out).find((f) => f.endsWith('.template.json'));
  expect(template).toBeDefined();
  const text = readFileSync(join(out, template as string), 'utf8');
  expect(text).toContain('"Type": "AWS::Lambda::WebFunctionEndpoint"');
  expect(text).toContain('"Runtime": "nodejs24.x"');
  expect(text).toContain('"AuthType": "ApplicationManaged"');
  expect(text).not.toContain('AWS::Lambda::Url');
}, 300_000);

it('GIVEN an unknown shape WHEN npm run synth -c deployment=lambda THEN it fails naming the value and the shapes there are', async () => {
  const run = await synth(out, 'deployment=lambda');
  expect(run.code).toBe(1);
  expect(run.output).toContain('Unknown deployment "lambda": -c deployment= takes function-url, web-function, container');
}, 300_000);
