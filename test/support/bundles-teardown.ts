/** Jest's global teardown: removes the bundles `bundles-setup.ts` built. */
import { rmSync } from 'node:fs';
import { TEST_BUNDLES_ENV } from './gateway';

export default function teardown(): void {
  const dir = process.env[TEST_BUNDLES_ENV];
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}
