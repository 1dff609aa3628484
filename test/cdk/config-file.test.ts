import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, parseConfig } from '../../functions/core/config/parse';
import { referencedEnvironment } from '../../lib/config-file';

/** The deployable example must parse with the project's own parser, given the variables it documents. */

const EXAMPLE = readFileSync(join(__dirname, '..', '..', 'proxy.toml'), 'utf8');
const ENV = { ASSETS_BACKEND_ACCESS_KEY_ID: 'AKIAEXAMPLE', ASSETS_BACKEND_SECRET_ACCESS_KEY: 'backend-secret', DEPLOY_KEY_SECRET: 'deploy-secret' };

describe('proxy.toml (the deployable example)', () => {
  test('GIVEN the file WHEN its { env = } references are collected THEN they are the three documented variables', () => {
    expect(referencedEnvironment(EXAMPLE)).toEqual(Object.keys(ENV).sort());
  });

  test('GIVEN its variables WHEN parsed THEN buckets, the deploy key and the GitHub Actions role come out as documented', () => {
    const config = parseConfig(EXAMPLE, ENV);
    const assets = config.buckets.get('assets');
    expect(assets?.backend).toMatchObject({ type: 's3', region: 'eu-west-1', auth: { type: 'static', keys: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'backend-secret' } } });
    expect(config.buckets.get('open-data')).toMatchObject({ anonymousAccess: true, backend: { auth: { type: 'anonymous' } } });
    expect(config.credentials.get('GWDEPLOYKEY000000001')).toMatchObject({ secretAccessKey: 'deploy-secret', enabled: true });
    const role = config.roles.get('arn:aws:iam::000000000000:role/ci');
    expect(role).toMatchObject({ trustedIssuers: ['https://token.actions.githubusercontent.com'], requiredAudiences: ['sts.amazonaws.com'] });
    expect(role?.scopes[0].prefixes).toEqual(['ci/{repository}/']);
  });

  test('GIVEN the variables are missing WHEN parsed THEN the configuration error names each of them', () => {
    let error: unknown;
    try {
      parseConfig(EXAMPLE, {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    for (const name of Object.keys(ENV)) expect((error as ConfigError).message).toContain(name);
  });
});

describe('referencedEnvironment', () => {
  test('GIVEN nested tables and arrays WHEN scanned THEN every { env = } is found once and other tables are ignored', () => {
    const toml = `
[[buckets]]
name = "a"
[buckets.backend_options]
secret_access_key = { env = "B" }
access_key_id = { env = "A" }
[[credentials]]
secret_access_key = { env = "A" }
[other]
env = "NOT_A_REFERENCE"
extra = 1
`;
    expect(referencedEnvironment(toml)).toEqual(['A', 'B']);
  });
});
