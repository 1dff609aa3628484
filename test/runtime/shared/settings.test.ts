import type { Environment } from '../../../functions/core/config/parse';
import { ConfigError } from '../../../functions/core/config/parse';
import {
  DEFAULT_DRAIN_TIMEOUT_MS,
  processEnvironment,
  readEdgeSettings,
  readLambdaSettings,
  readListenSettings,
  readNodeServerSettings,
  readWebFunctionSettings,
} from '../../../functions/runtime/shared/settings';

/** The runtimes' own environment variables, read and validated once at start-up. */

/** The message a start-up refused for `env` prints (every problem, one per line), or '' when it starts. */
function refusal(read: (env: Environment) => unknown, env: Environment): string {
  try {
    read(env);
    return '';
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
}

describe('Node server settings', () => {
  it('GIVEN nothing set THEN 127.0.0.1:8080, proxy.toml, a 120 s idle timeout and 1 MiB stream buffers', () => {
    expect(readNodeServerSettings({})).toEqual({ host: '127.0.0.1', port: 8080, configPath: 'proxy.toml', idleTimeoutMs: 120_000, streamBufferBytes: 1024 * 1024, drainTimeoutMs: 25_000 });
  });

  it('GIVEN empty values THEN the defaults, as if unset', () => {
    expect(readNodeServerSettings({ HOST: '', PORT: '', CONFIG_PATH: '', GATEWAY_IDLE_TIMEOUT_MS: '', GATEWAY_STREAM_BUFFER_BYTES: '' })).toEqual(readNodeServerSettings({}));
  });

  it('GIVEN every variable set THEN each is taken', () => {
    const env = { HOST: '::', PORT: '0', CONFIG_PATH: '/etc/gw/proxy.toml', GATEWAY_IDLE_TIMEOUT_MS: '1500', GATEWAY_STREAM_BUFFER_BYTES: '65536' };
    expect(readNodeServerSettings(env)).toEqual({ host: '::', port: 0, configPath: '/etc/gw/proxy.toml', idleTimeoutMs: 1500, streamBufferBytes: 65536, drainTimeoutMs: 25_000 });
  });

  it.each([
    ['HOST', 'gw example', 'HOST must be a host name or IP address (got "gw example")'],
    ['PORT', 'http', 'PORT must be a port number, 0 to 65535 (got "http")'],
    ['PORT', '65536', 'PORT must be a port number, 0 to 65535 (got "65536")'],
    ['PORT', '-1', 'PORT must be a port number, 0 to 65535 (got "-1")'],
    ['GATEWAY_IDLE_TIMEOUT_MS', '0', 'GATEWAY_IDLE_TIMEOUT_MS must be a whole number of milliseconds, 1 to 2147483647 (got "0")'],
    ['GATEWAY_IDLE_TIMEOUT_MS', '2.5', 'GATEWAY_IDLE_TIMEOUT_MS must be a whole number of milliseconds, 1 to 2147483647 (got "2.5")'],
    ['GATEWAY_IDLE_TIMEOUT_MS', '2147483648', 'GATEWAY_IDLE_TIMEOUT_MS must be a whole number of milliseconds, 1 to 2147483647 (got "2147483648")'],
    ['METRICS_PORT', 'prometheus', 'METRICS_PORT must be a port number, 0 to 65535 (got "prometheus")'],
  ])('GIVEN %s=%p THEN the start is refused naming the variable', (name, value, message) => {
    expect(refusal(readNodeServerSettings, { [name]: value })).toContain(message);
  });

  it('GIVEN METRICS_PORT THEN metrics get a listener on that port; unset or empty, none', () => {
    expect(readNodeServerSettings({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(readNodeServerSettings({ METRICS_PORT: '' })).not.toHaveProperty('metricsPort');
    expect(readNodeServerSettings({})).not.toHaveProperty('metricsPort');
  });

  it('GIVEN several bad variables THEN one refusal lists them all', () => {
    const message = refusal(readNodeServerSettings, { PORT: 'x', GATEWAY_IDLE_TIMEOUT_MS: 'y', GATEWAY_STREAM_BUFFER_BYTES: 'z' });
    expect(message.split('\n').filter((line) => line.startsWith('  - '))).toHaveLength(3);
    for (const name of ['PORT', 'GATEWAY_IDLE_TIMEOUT_MS', 'GATEWAY_STREAM_BUFFER_BYTES']) expect(message).toContain(`${name} must be`);
  });
});

describe('GATEWAY_STREAM_BUFFER_BYTES', () => {
  const streamBufferBytes = (env: Environment): number => readNodeServerSettings(env).streamBufferBytes;

  it('GIVEN nothing set THEN 1 MiB per connection', () => {
    expect(streamBufferBytes({})).toBe(1024 * 1024);
    expect(streamBufferBytes({ GATEWAY_STREAM_BUFFER_BYTES: '' })).toBe(1024 * 1024);
  });

  it('GIVEN a whole number of bytes THEN that', () => {
    expect(streamBufferBytes({ GATEWAY_STREAM_BUFFER_BYTES: '65536' })).toBe(65536);
  });

  it.each(['abc', '1.5', '-1', '1024', '1e400'])('GIVEN %p THEN the configuration is refused', (value) => {
    expect(() => streamBufferBytes({ GATEWAY_STREAM_BUFFER_BYTES: value })).toThrow(ConfigError);
    expect(() => streamBufferBytes({ GATEWAY_STREAM_BUFFER_BYTES: value })).toThrow(/GATEWAY_STREAM_BUFFER_BYTES must be a whole number of bytes, at least 16384/);
  });
});

describe('listen settings (the local Function URL)', () => {
  it('GIVEN HOST and PORT THEN they are read as for the Node server, and nothing else is', () => {
    expect(readListenSettings({ HOST: '0.0.0.0', PORT: '9000', GATEWAY_STREAM_BUFFER_BYTES: 'ignored here' })).toEqual({ host: '0.0.0.0', port: 9000 });
    expect(refusal(readListenSettings, { PORT: '8o8o' })).toContain('PORT must be a port number');
  });
});

describe('Lambda settings', () => {
  it('GIVEN nothing set THEN proxy.toml, a 120 s idle timeout and no parameters', () => {
    expect(readLambdaSettings({})).toEqual({ configPath: 'proxy.toml', idleTimeoutMs: 120_000, parameters: {} });
  });

  it('GIVEN *_PARAMETER names (paths, ARNs, selectors) THEN each stands for its variable', () => {
    const env = {
      OIDC_PROVIDER_KEY_PARAMETER: '/S3Gateway/oidc-provider-key',
      SESSION_TOKEN_KEY_PARAMETER: 'arn:aws:ssm:eu-west-1:123456789012:parameter/gw/session:3',
      OIDC_PROVIDER_ISSUER_PARAMETER: 'gw.issuer',
    };
    expect(readLambdaSettings(env).parameters).toEqual({
      OIDC_PROVIDER_KEY: '/S3Gateway/oidc-provider-key',
      SESSION_TOKEN_KEY: 'arn:aws:ssm:eu-west-1:123456789012:parameter/gw/session:3',
      OIDC_PROVIDER_ISSUER: 'gw.issuer',
    });
  });

  it.each(['OIDC_PROVIDER_KEY_PARAMETER', 'SESSION_TOKEN_KEY_PARAMETER', 'OIDC_PROVIDER_ISSUER_PARAMETER'])('GIVEN %s that is no parameter name THEN the cold start is refused naming it', (name) => {
    expect(refusal(readLambdaSettings, { [name]: 'my key' })).toContain(`${name} must be an SSM parameter name or ARN (got "my key")`);
  });

  it('GIVEN GATEWAY_IDLE_TIMEOUT_MS THEN the Lambda handler reads it as the Node server does', () => {
    expect(readLambdaSettings({ GATEWAY_IDLE_TIMEOUT_MS: '1500' }).idleTimeoutMs).toBe(1500);
    expect(refusal(readLambdaSettings, { GATEWAY_IDLE_TIMEOUT_MS: 'soon' })).toContain('GATEWAY_IDLE_TIMEOUT_MS must be');
  });
});

describe('edge settings', () => {
  const configText = (env: Environment, bundled: string): string => readEdgeSettings(env, bundled).configText;

  it('GIVEN CONFIG_TOML THEN it wins over the bundled file; without it the bundled file is read', () => {
    expect(configText({ CONFIG_TOML: '[[buckets]]' }, 'bundled')).toBe('[[buckets]]');
    expect(configText({}, 'bundled')).toBe('bundled');
    expect(configText({ CONFIG_TOML: '' }, 'bundled')).toBe('bundled');
  });

  it('GIVEN EDGE_ZONE_COMPRESSION THEN default or disabled; unset is default, anything else stops the start naming it', () => {
    expect(readEdgeSettings({}, '').zoneCompression).toBe('default');
    expect(readEdgeSettings({ EDGE_ZONE_COMPRESSION: 'disabled' }, '').zoneCompression).toBe('disabled');
    expect(readEdgeSettings({ EDGE_ZONE_COMPRESSION: 'default' }, '').zoneCompression).toBe('default');
    expect(refusal((env) => readEdgeSettings(env, ''), { EDGE_ZONE_COMPRESSION: 'off' })).toContain('EDGE_ZONE_COMPRESSION must be "default" or "disabled" (got "off")');
  });
});

describe('the process environment', () => {
  it('GIVEN a Node process THEN the settings are read from process.env', () => {
    expect(processEnvironment()).toBe(process.env);
  });
});

describe('GATEWAY_DRAIN_TIMEOUT_MS', () => {
  it('GIVEN nothing set THEN 25 s: under the 30 s Kubernetes and ECS wait before SIGKILL', () => {
    expect(DEFAULT_DRAIN_TIMEOUT_MS).toBe(25_000);
    expect(readNodeServerSettings({}).drainTimeoutMs).toBe(25_000);
    expect(readNodeServerSettings({ GATEWAY_DRAIN_TIMEOUT_MS: '' }).drainTimeoutMs).toBe(25_000);
  });

  it.each([
    ['0', 0],
    ['90000', 90_000],
    ['3600000', 3_600_000],
  ])('GIVEN %p THEN %p ms', (value, ms) => {
    expect(readNodeServerSettings({ GATEWAY_DRAIN_TIMEOUT_MS: value }).drainTimeoutMs).toBe(ms);
  });

  it.each(['soon', '-1', '2.5', '1e4', ' 100', '3600001', '99999999999999999999'])('GIVEN %p THEN the start-up is refused, naming the variable and the range', (value) => {
    expect(refusal(readNodeServerSettings, { GATEWAY_DRAIN_TIMEOUT_MS: value })).toContain(
      `GATEWAY_DRAIN_TIMEOUT_MS must be a whole number of milliseconds from 0 to 3600000 (got "${value}")`,
    );
  });
});

describe('Web Function settings: AWS_LAMBDA_HTTP_ENDPOINT, as Lambda sets it, or a clear refusal', () => {
  test.each([
    ['0.0.0.0:3000', '0.0.0.0', 3000],
    ['127.0.0.1:0', '127.0.0.1', 0],
    ['[::]:3000', '::', 3000],
    ['localhost:8080', 'localhost', 8080],
  ])('GIVEN %s THEN the server listens on host %s and port %i', (value, host, port) => {
    expect(readWebFunctionSettings({ AWS_LAMBDA_HTTP_ENDPOINT: value }).listen).toEqual({ host, port });
  });

  test('GIVEN no value THEN the refusal says what sets it and what to run instead', () => {
    expect(refusal(readWebFunctionSettings, {})).toMatch(/AWS_LAMBDA_HTTP_ENDPOINT is not set: .*node-server\.js with HOST and PORT/);
    expect(refusal(readWebFunctionSettings, { AWS_LAMBDA_HTTP_ENDPOINT: '' })).toMatch(/AWS_LAMBDA_HTTP_ENDPOINT is not set/);
  });

  test.each(['3000', '0.0.0.0', '0.0.0.0:', ':3000', '0.0.0.0:70000', '::1:3000', 'http://0.0.0.0:3000', '0.0.0.0:3000 '])(
    'GIVEN %j THEN it is refused showing the value and the expected shape',
    (value) => {
      expect(refusal(readWebFunctionSettings, { AWS_LAMBDA_HTTP_ENDPOINT: value })).toContain(`AWS_LAMBDA_HTTP_ENDPOINT must be host:port (e.g. 0.0.0.0:3000 or [::]:3000) (got "${value}")`);
    },
  );

  test('GIVEN PARAMETER_REGION and parameter names THEN both are read', () => {
    const settings = readWebFunctionSettings({ AWS_LAMBDA_HTTP_ENDPOINT: '0.0.0.0:3000', PARAMETER_REGION: 'eu-west-1', SESSION_TOKEN_KEY_PARAMETER: '/gw/session-token-key' });
    expect(settings.parameterRegion).toBe('eu-west-1');
    expect(settings.parameters).toEqual({ SESSION_TOKEN_KEY: '/gw/session-token-key' });
  });
});
