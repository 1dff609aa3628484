import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildEdge } from '../scripts/build-edge';

const ROOT = join(__dirname, '..');

test('GIVEN the edge entry WHEN bundled as build:edge does THEN it is one ES module with the configuration, the lazily loaded STS SDK on fetch, and nothing from node:*', async () => {
  const configPath = join(ROOT, 'local', 'proxy.toml');
  const code = await buildEdge({ configPath });
  expect(code).toMatch(/^export \{[^}]*as default/m);
  expect(readFileSync(configPath, 'utf8')).toContain('DEMOACCESSKEYID00000');
  expect(code).toContain('DEMOACCESSKEYID00000');
  expect(code).toContain('AssumeRoleWithWebIdentity');
  expect(code).toContain('FetchHttpHandler');
  expect(code).not.toMatch(/(?:from|import\(|require\()\s*["']node:/);
  // Workers have no DOMParser: the SDK's plain-JavaScript XML parser is bundled instead of its browser one.
  expect(code).not.toContain('DOMParser');
}, 60_000);

test('GIVEN a configuration file that does not exist THEN the build fails naming it', async () => {
  await expect(buildEdge({ configPath: join(ROOT, 'no-such.toml') })).rejects.toThrow(/no-such\.toml/);
}, 60_000);
