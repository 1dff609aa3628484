import type { S3rver } from '../../scripts/s3rver';
import { runGatewayExpectingFailure, startGateway } from '../support/gateway';
import { describeDrain, startDrainBackend, type LaunchTarget } from './drain-specs';

/**
 * The Node server (`npm run serve`, the container's process) shutting down on SIGTERM: requests in flight
 * finish, new connections are refused, keep-alive clients are told to close, and it exits 0. The same
 * specifications run against the container image in container.test.ts.
 */
let backend: S3rver;

beforeAll(async () => {
  backend = await startDrainBackend();
}, 180_000);

afterAll(() => backend?.stop());

const nodeServer: LaunchTarget = async (config, env) => {
  const gw = await startGateway('node', { config, env: { ...env } });
  return {
    endpoint: gw.endpoint,
    terminate: () => gw.kill('SIGTERM'),
    exited: gw.exited,
    logs: gw.logs,
    stop: gw.stop,
  };
};

describeDrain('Node server', () => nodeServer, () => backend);

describe('GATEWAY_DRAIN_TIMEOUT_MS at start-up', () => {
  it.each(['soon', '-1', '2.5', '3600001'])('GIVEN %p THEN the Node server refuses to start, naming the variable', async (value) => {
    const { code, output } = await runGatewayExpectingFailure('node', { config: '', env: { GATEWAY_DRAIN_TIMEOUT_MS: value } });
    expect(code).toBe(1);
    expect(output).toContain(`GATEWAY_DRAIN_TIMEOUT_MS must be a whole number of milliseconds from 0 to 3600000 (got "${value}")`);
  });
});
