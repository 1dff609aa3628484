import { ConfigError } from '../core/config/parse';

/** Where a Lambda Web Function's server must listen. */
export interface HttpEndpoint {
  readonly host: string;
  readonly port: number;
}

/**
 * Reads `AWS_LAMBDA_HTTP_ENDPOINT`, the `host:port` a Web Function's server must listen on (`0.0.0.0:3000` on
 * Lambda, where a loopback-only bind fails readiness and `PORT` is not set). IPv6 hosts come bracketed
 * (`[::]:3000`). Anything else is refused naming the variable and the value, which is no secret.
 */
export function parseHttpEndpoint(value: string | undefined): HttpEndpoint {
  if (value === undefined || value === '') {
    throw new ConfigError(['AWS_LAMBDA_HTTP_ENDPOINT is not set: this entry runs on a Lambda Web Function, which sets it (for a plain server use node-server.js with HOST and PORT)']);
  }
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    throw new ConfigError([`AWS_LAMBDA_HTTP_ENDPOINT must be host:port (e.g. 0.0.0.0:3000 or [::]:3000), got "${value}"`]);
  }
  return { host: match[1] ?? match[2], port };
}
