/** Real servers are started by the suites themselves, so files run one worker each and time out generously. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 60000,
  // The gateway's Node bundles, built once per run for every suite that starts a gateway (test/support/gateway.ts).
  globalSetup: '<rootDir>/test/support/bundles-setup.ts',
  globalTeardown: '<rootDir>/test/support/bundles-teardown.ts',
  maxWorkers: 2,
};
