import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayStack } from '../../lib/gateway-stack';

/**
 * The one synth that really bundles: local esbuild (no Docker), the configuration copied into the asset
 * where CONFIG_PATH points, the AWS SDK inside the bundle, and source maps next to it.
 */

const ROOT = join(__dirname, '..', '..');

test('GIVEN bundling WHEN the stack is synthesized THEN each function asset holds a minified bundle with its SDK and source map, and the gateway asset holds the configuration and an executable exec wrapper', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'gateway-cdk-out-'));
  try {
    const app = new App({ outdir });
    const configFile = join(ROOT, 'local', 'proxy.toml');
    const stack = new GatewayStack(app, 'S3Gateway', { gateway: { configFile } });
    const template = Template.fromStack(stack);
    app.synth();
    const assetOf = (logicalIdPrefix: string): string => {
      const [, fn] = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) => id.startsWith(logicalIdPrefix)) ?? [];
      const key = (fn as { Properties: { Code: { S3Key: string } } }).Properties.Code.S3Key;
      return join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
    };

    const gateway = assetOf('GatewayFunction');
    expect(readFileSync(join(gateway, 'proxy.toml'), 'utf8')).toBe(readFileSync(configFile, 'utf8'));
    // AWS_LAMBDA_EXEC_WRAPPER points here: Lambda executes it, so it must be there and executable.
    const wrapper = join(gateway, 'exec-wrapper.sh');
    expect(readFileSync(wrapper, 'utf8')).toBe(readFileSync(join(ROOT, 'functions', 'runtime', 'lambda', 'exec-wrapper.sh'), 'utf8'));
    expect(statSync(wrapper).mode & 0o111).toBe(0o111);
    const bundle = readFileSync(join(gateway, 'index.js'), 'utf8');
    expect(existsSync(join(gateway, 'index.js.map'))).toBe(true);
    // The SSM call is the function's own (ADR 0014): no SSM client is bundled, and nothing of the SDK is required.
    expect(bundle).toContain('AmazonSSM.GetParameter');
    expect(bundle).not.toContain('GetParameterCommand');
    // Only the SDK's optional CRT signer stays an (unused, guarded) require.
    expect(bundle).not.toMatch(/require\("@aws-sdk\/(client|core|credential)/);
    // Minified: thousands of characters per line (readable code has tens; license comments add a few lines).
    expect(bundle.length / bundle.split('\n').length).toBeGreaterThan(1000);

    const generator = assetOf('GatewayKeysGenerator');
    const generatorBundle = readFileSync(join(generator, 'index.js'), 'utf8');
    expect(generatorBundle).toContain('PutParameterCommand');
    expect(generatorBundle).not.toMatch(/require\("@aws-sdk\/(client|core|credential)/);
    expect(existsSync(join(generator, 'proxy.toml'))).toBe(false);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}, 180_000);
