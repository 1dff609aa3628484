import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `cdk synth -c deployment=container` works on a machine with no AWS account and no Docker: the stack is
 * environment-agnostic and the image is an asset, built only when it is published at deploy time.
 */
const ROOT = resolve(__dirname, '../..');

it('GIVEN no AWS credentials and a docker that fails WHEN npm run synth -- -c deployment=container THEN the CLI writes the Fargate service\'s template and an arm64 image asset', async () => {
  const out = mkdtempSync(join(tmpdir(), 'cdk-out-'));
  const home = mkdtempSync(join(tmpdir(), 'home-'));
  try {
    // A docker first on PATH that fails and leaves a mark: synthesis must never run it.
    const called = join(home, 'docker-was-called');
    writeFileSync(join(home, 'docker'), `#!/bin/sh\ntouch '${called}'\nexit 1\n`, { mode: 0o755 });
    const env: NodeJS.ProcessEnv = { PATH: `${home}:${process.env.PATH}`, HOME: home, CDK_DISABLE_VERSION_CHECK: '1' };
    const run = await new Promise<{ code: number; output: string }>((resolvePromise) => {
      execFile('npm', ['run', 'synth', '--silent', '--', '-c', 'deployment=container', '--output', out, '--quiet'], { cwd: ROOT, env, timeout: 240_000 }, (err, stdout, stderr) =>
        resolvePromise({ code: err ? 1 : 0, output: stdout + stderr }),
      );
    });
    expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ code: 0, output: '' });
    expect(existsSync(called)).toBe(false);

    const files = readdirSync(out);
    expect(files).toContain('S3GatewayContainer.template.json');
    const template = readFileSync(join(out, 'S3GatewayContainer.template.json'), 'utf8');
    expect(template).toContain('"AWS::ECS::Service"');
    expect(template).toContain('"HealthCheckPath": "/.health"');
    expect(template).toContain('"CpuArchitecture": "ARM64"');
    const assets = JSON.parse(readFileSync(join(out, 'S3GatewayContainer.assets.json'), 'utf8')) as { dockerImages: Record<string, { source: { platform?: string } }> };
    expect(Object.values(assets.dockerImages).map((image) => image.source.platform)).toEqual(['linux/arm64']);
    // Only the container stack: the Function URL shape is the other deployment.
    expect(files.filter((f) => f.endsWith('.template.json'))).toEqual(['S3GatewayContainer.template.json']);
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}, 300_000);
