import { App } from 'aws-cdk-lib';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebFunctionStack } from '../../lib/web-function-stack';
import { freePort } from '../support/gateway';

/**
 * The Web Function's code as it is uploaded: one synth that really bundles (local esbuild, no Docker), then
 * the asset run as the runtime would run it (loaded by another module, not as Node's main module), with only
 * what the platform sets: it finds its bundled configuration and listens on AWS_LAMBDA_HTTP_ENDPOINT.
 */

const ROOT = join(__dirname, '..', '..');

test('GIVEN bundling WHEN the web-function stack is synthesized THEN its asset holds a minified index.js with its SDK, a source map and the configuration, and it serves when loaded', async () => {
  const outdir = mkdtempSync(join(tmpdir(), 'web-function-cdk-out-'));
  try {
    const app = new App({ outdir });
    const configFile = join(ROOT, 'local', 'proxy.toml');
    new WebFunctionStack(app, 'S3Gateway', { gateway: { configFile } });
    app.synth();
    const assets = readdirSync(outdir).filter((name) => name.startsWith('asset.') && existsSync(join(outdir, name, 'index.js')));
    const gatewayAsset = assets.map((name) => join(outdir, name)).find((dir) => existsSync(join(dir, 'proxy.toml')));
    expect(gatewayAsset).toBeDefined();
    const dir = gatewayAsset as string;
    expect(readFileSync(join(dir, 'proxy.toml'), 'utf8')).toBe(readFileSync(configFile, 'utf8'));
    expect(existsSync(join(dir, 'index.js.map'))).toBe(true);
    const bundle = readFileSync(join(dir, 'index.js'), 'utf8');
    // The SSM call is the function's own (ADR 0014): no SSM client is bundled, and nothing of the SDK is required.
    expect(bundle).toContain('AmazonSSM.GetParameter');
    expect(bundle).not.toContain('GetParameterCommand');
    expect(bundle).not.toMatch(/require\("@aws-sdk\/(client|core|credential)/);
    expect(bundle.length / bundle.split('\n').length).toBeGreaterThan(1000);

    const port = await freePort();
    const child = spawn(process.execPath, ['-e', `require(${JSON.stringify(join(dir, 'index.js'))})`], {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH, AWS_LAMBDA_HTTP_ENDPOINT: `127.0.0.1:${port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      for (let i = 0; i < 200 && !output.includes('gateway listening'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(output).toContain(`"httpEndpoint":"127.0.0.1:${port}"`);
      // Only the Web Function's server: the bundled Node server's own entry code never runs.
      expect(output.match(/gateway listening/g)).toHaveLength(1);
      // The gateway's own, backend-free answer proves the request reached it (the demo bucket's backend may
      // or may not be running: the start-local suite starts one on the same address, in parallel).
      const res = await fetch(`http://127.0.0.1:${port}/.health`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('{"status":"ok"}');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}, 180_000);
