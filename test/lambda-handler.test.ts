import { runGatewayExpectingFailure } from './support/gateway';

/** The Lambda entry, behind the local Function URL (`npm run start:lambda`), which starts only once the cold start succeeds. */

const CONFIG = '[[buckets]]\nname = "b"\nbackend_type = "s3"\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9"\nbucket_name = "b"\n';

describe('Lambda entry: its settings', () => {
  it('GIVEN a *_PARAMETER that names no SSM parameter THEN the cold start fails naming the variable, and nothing is read from SSM', async () => {
    const { code, output } = await runGatewayExpectingFailure('lambda', { config: CONFIG, env: { SESSION_TOKEN_KEY_PARAMETER: 'session key' } });
    expect(code).toBe(1);
    expect(output).toContain('cold start failed');
    expect(output).toContain('SESSION_TOKEN_KEY_PARAMETER must be an SSM parameter name or ARN');
    expect(output).not.toContain('cannot read SSM parameter');
  });
});
