import { ConfigError } from '../../functions/core/config/parse';
import { parseHttpEndpoint } from '../../functions/runtime/web-function-endpoint';

/** Where the Web Function entry listens: AWS_LAMBDA_HTTP_ENDPOINT, as Lambda sets it, or a clear refusal. */

describe('parseHttpEndpoint', () => {
  test.each([
    ['0.0.0.0:3000', '0.0.0.0', 3000],
    ['127.0.0.1:0', '127.0.0.1', 0],
    ['[::]:3000', '::', 3000],
    ['localhost:8080', 'localhost', 8080],
  ])('GIVEN %s WHEN parsed THEN host %s and port %i', (value, host, port) => {
    expect(parseHttpEndpoint(value)).toEqual({ host, port });
  });

  test('GIVEN no value WHEN parsed THEN a ConfigError says what sets it and what to run instead', () => {
    expect(() => parseHttpEndpoint(undefined)).toThrow(ConfigError);
    expect(() => parseHttpEndpoint('')).toThrow(/AWS_LAMBDA_HTTP_ENDPOINT is not set: .*node-server\.js with HOST and PORT/);
  });

  test.each(['3000', '0.0.0.0', '0.0.0.0:', ':3000', '0.0.0.0:70000', '::1:3000', 'http://0.0.0.0:3000', '0.0.0.0:3000 '])(
    'GIVEN %j WHEN parsed THEN it is refused showing the value and the expected shape',
    (value) => {
      expect(() => parseHttpEndpoint(value)).toThrow(`AWS_LAMBDA_HTTP_ENDPOINT must be host:port (e.g. 0.0.0.0:3000 or [::]:3000), got "${value}"`);
    },
  );
});
