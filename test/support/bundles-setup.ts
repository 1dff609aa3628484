/**
 * Jest's global setup: builds the gateway's Node bundles once per run (`npm run build`'s, into a temp dir)
 * for `startGateway`, which then runs them with plain node as `npm run serve` does. Under tsx every start
 * also loaded the loader and hundreds of modules (~0.4 s a start here, a few hundred starts a run).
 * The workers inherit the directory through the environment.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBundles } from '../../scripts/build';
import { TEST_BUNDLES_ENV } from './gateway';

export default async function setup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bundles-'));
  await buildBundles(dir);
  process.env[TEST_BUNDLES_ENV] = dir;
}
