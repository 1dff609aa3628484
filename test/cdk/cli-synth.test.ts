import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** `npm run synth` works on a machine with no AWS account: the stack is environment-agnostic. */
const ROOT = resolve(__dirname, '../..');

it('GIVEN no AWS credentials WHEN npm run synth THEN the CDK CLI writes a template with the streaming Function URL', async () => {
  const out = mkdtempSync(join(tmpdir(), 'cdk-out-'));
  try {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'home-')), CDK_DISABLE_VERSION_CHECK: '1' };
    const run = await new Promise<{ code: number; output: string }>((resolvePromise) => {
      execFile('npm', ['run', 'synth', '--silent', '--', '--output', out, '--quiet'], { cwd: ROOT, env, timeout: 240_000 }, (err, stdout, stderr) =>
        resolvePromise({ code: err ? 1 : 0, output: stdout + stderr }),
      );
    });
    expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ code: 0, output: '' });
    const template = readdirSync(out).find((f) => f.endsWith('.template.json'));
    expect(template).toBeDefined();
    const text = readFileSync(join(out, template as string), 'utf8');
    expect(text).toContain('"InvokeMode": "RESPONSE_STREAM"');
    expect(text).toContain('"AuthType": "NONE"');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 300_000);
