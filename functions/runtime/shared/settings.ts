import { ConfigError, type Environment } from '../../core/config/parse';
import { DEFAULT_IDLE_TIMEOUT_MS } from '../../core/streams';

/**
 * The runtimes' own settings, read from the environment and validated once at start-up: a value that cannot
 * work stops the start with a ConfigError naming the variable, never a silent default. The core's settings
 * (MAX_UPLOAD_BYTES, OIDC_*, SESSION_TOKEN_KEY and the names a configuration refers to) are read by
 * `parseConfig` from the same environment; this is the only runtime code that reads `process.env`.
 */

/** Where a Node process listens. */
export interface ListenSettings {
  /** HOST: the address to listen on. @default 127.0.0.1 */
  readonly host: string;
  /** PORT: the TCP port; 0 picks a free one. @default 8080 */
  readonly port: number;
}

/** A Node process's gateway: the Node server's, and the Lambda handler's. */
export interface GatewaySettings {
  /** CONFIG_PATH: the TOML configuration file. @default proxy.toml */
  readonly configPath: string;
  /** GATEWAY_IDLE_TIMEOUT_MS: idle time on a backend connection, or of a streamed upload body, after which the request fails. @default 120 000 */
  readonly idleTimeoutMs: number;
}

export interface NodeServerSettings extends ListenSettings, GatewaySettings {
  /** GATEWAY_STREAM_BUFFER_BYTES: how much of a body each connection holds before it pushes back. @default 1 MiB */
  readonly streamBufferBytes: number;
  /** GATEWAY_DRAIN_TIMEOUT_MS: how long requests in flight may finish after SIGTERM. @default 25 000 */
  readonly drainTimeoutMs: number;
  /**
   * METRICS_PORT: where Prometheus metrics are served (`/metrics`, on HOST), a listener of its own so they
   * are never exposed on the S3 port. Unset: no metrics. 0 picks a free port.
   */
  readonly metricsPort?: number;
}

/** Settings a deployed function may receive as the name of an SSM parameter holding the value (`NAME_PARAMETER`). */
export const PARAMETER_BACKED = ['OIDC_PROVIDER_KEY', 'SESSION_TOKEN_KEY', 'OIDC_PROVIDER_ISSUER'] as const;
export type ParameterBacked = (typeof PARAMETER_BACKED)[number];

export interface LambdaSettings extends GatewaySettings {
  /** The SSM parameter named by each `NAME_PARAMETER` that is set (OIDC_PROVIDER_KEY_PARAMETER, …). */
  readonly parameters: Readonly<Partial<Record<ParameterBacked, string>>>;
}

/** A Lambda Web Function's: where its server must listen, and where its parameters live. */
export interface WebFunctionSettings {
  /** AWS_LAMBDA_HTTP_ENDPOINT (`host:port`, set by the platform; `[::]:3000` for IPv6). */
  readonly listen: ListenSettings;
  /** The SSM parameter named by each `NAME_PARAMETER` that is set. */
  readonly parameters: LambdaSettings['parameters'];
  /** PARAMETER_REGION: the Region whose SSM holds them (a multi-Region endpoint runs elsewhere too). */
  readonly parameterRegion?: string;
}

/**
 * EDGE_ZONE_COMPRESSION: what the Cloudflare zone does on the worker's route. `default`: Cloudflare compresses
 * the content types it lists. `disabled`: a Compression Rule ("Disable compression") turns that off there.
 * It decides which answers the worker marks `no-transform` (runtime/edge/no-transform.ts).
 */
export type ZoneCompression = 'default' | 'disabled';

export interface EdgeSettings {
  /** CONFIG_TOML when set (the whole configuration in a binding), else the configuration bundled at build time. */
  readonly configText: string;
  /** GATEWAY_IDLE_TIMEOUT_MS: how long a body the gateway collects may stop arriving. @default 120 000 */
  readonly idleTimeoutMs: number;
  /** EDGE_ZONE_COMPRESSION. @default default */
  readonly zoneCompression: ZoneCompression;
}

export { DEFAULT_IDLE_TIMEOUT_MS };

/**
 * How long the Node server lets requests in flight finish once SIGTERM arrived: under the 30 s that Kubernetes
 * (terminationGracePeriodSeconds) and ECS (stopTimeout) wait by default before SIGKILL, so the server ends its
 * connections and exits 0 on its own.
 */
export const DEFAULT_DRAIN_TIMEOUT_MS = 25_000;

/** An hour: a grace period is minutes at most, and timers above 2^31-1 ms fire at once. */
export const MAX_DRAIN_TIMEOUT_MS = 3_600_000;

/**
 * How much of a body each connection, client or backend, holds before it pushes back on its source: 1 MiB
 * unless GATEWAY_STREAM_BUFFER_BYTES says otherwise (Envoy's default per-connection buffer limit). With Node's
 * own 16 KiB a large body stops and restarts its source every few reads. Measured on 1 MiB GETs at
 * concurrency 8: a fifth less CPU per GET (A/B, alternating order) and 14% more throughput in the bench; the
 * RSS growth of a 1 GiB GET unchanged (40-46 MB against 42-45 in fresh processes; 35-48 in the e2e spec).
 * The cost is memory for slow clients: one whose backend sends faster than it reads holds up to twice this.
 * Only the connections: every other stream keeps Node's default (setting it process-wide moved no more and
 * once took the e2e spec's RSS growth to 66 MB).
 */
export const DEFAULT_STREAM_BUFFER_BYTES = 1024 * 1024;

/** The process's environment: what the Node server and the Lambda handler read their settings from. */
export function processEnvironment(): Environment {
  return process.env;
}

/** HOST, PORT, CONFIG_PATH, GATEWAY_IDLE_TIMEOUT_MS, _STREAM_BUFFER_BYTES, _DRAIN_TIMEOUT_MS and METRICS_PORT; throws naming each bad one. */
export function readNodeServerSettings(env: Environment): NodeServerSettings {
  const read = new Reader(env);
  const drainTimeoutMs =
    read.integer('GATEWAY_DRAIN_TIMEOUT_MS', 0, MAX_DRAIN_TIMEOUT_MS, `a whole number of milliseconds from 0 to ${MAX_DRAIN_TIMEOUT_MS}`) ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const metricsPort = read.integer('METRICS_PORT', 0, 65_535, 'a port number, 0 to 65535');
  const settings = { ...listen(read), ...gateway(read), streamBufferBytes: streamBuffer(read), drainTimeoutMs, ...(metricsPort === undefined ? {} : { metricsPort }) };
  return read.done(settings);
}

/** HOST and PORT alone (the local Function URL in front of the Lambda handler listens as the Node server does). */
export function readListenSettings(env: Environment): ListenSettings {
  const read = new Reader(env);
  return read.done(listen(read));
}

/** CONFIG_PATH, GATEWAY_IDLE_TIMEOUT_MS and the `NAME_PARAMETER` names; throws naming each bad one. */
export function readLambdaSettings(env: Environment): LambdaSettings {
  const read = new Reader(env);
  return read.done({ ...gateway(read), parameters: parameters(read) });
}

function parameters(read: Reader): LambdaSettings['parameters'] {
  const names: Partial<Record<ParameterBacked, string>> = {};
  for (const variable of PARAMETER_BACKED) {
    const name = read.text(`${variable}_PARAMETER`, isParameterName, 'an SSM parameter name or ARN');
    if (name !== undefined) names[variable] = name;
  }
  return names;
}

/**
 * AWS_LAMBDA_HTTP_ENDPOINT, the `NAME_PARAMETER` names and PARAMETER_REGION; throws naming each bad one.
 * The rest (CONFIG_PATH, GATEWAY_*) the Node server it runs reads itself.
 */
export function readWebFunctionSettings(env: Environment): WebFunctionSettings {
  const read = new Reader(env);
  const endpoint = read.raw('AWS_LAMBDA_HTTP_ENDPOINT');
  const listen = endpoint === undefined ? undefined : httpEndpoint(endpoint);
  if (endpoint === undefined) read.missing('AWS_LAMBDA_HTTP_ENDPOINT', 'this entry runs on a Lambda Web Function, which sets it (for a plain server use node-server.js with HOST and PORT)');
  else if (listen === undefined) read.problem('AWS_LAMBDA_HTTP_ENDPOINT', endpoint, 'host:port (e.g. 0.0.0.0:3000 or [::]:3000)');
  const parameterRegion = read.text('PARAMETER_REGION', (value) => /^[a-z0-9-]+$/.test(value), 'an AWS Region name');
  return read.done({ listen: listen ?? { host: '', port: 0 }, parameters: parameters(read), parameterRegion });
}

/** `host:port`; IPv6 hosts bracketed. */
function httpEndpoint(value: string): ListenSettings | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  return match && port <= 65535 ? { host: match[1] ?? match[2], port } : undefined;
}

/** CONFIG_TOML, from a Worker's bindings, or `bundled` without it; GATEWAY_IDLE_TIMEOUT_MS; EDGE_ZONE_COMPRESSION. */
export function readEdgeSettings(env: Environment, bundled: string): EdgeSettings {
  const read = new Reader(env);
  const zone = read.text('EDGE_ZONE_COMPRESSION', (value) => value === 'default' || value === 'disabled', '"default" or "disabled"');
  return read.done({
    configText: read.text('CONFIG_TOML', () => true, '') ?? bundled,
    idleTimeoutMs: idleTimeout(read),
    zoneCompression: zone === 'disabled' ? 'disabled' : 'default',
  });
}

function listen(read: Reader): ListenSettings {
  return {
    host: read.text('HOST', (value) => /^[A-Za-z0-9._:%-]+$/.test(value), 'a host name or IP address') ?? '127.0.0.1',
    port: read.integer('PORT', 0, 65_535, 'a port number, 0 to 65535') ?? 8080,
  };
}

function gateway(read: Reader): GatewaySettings {
  return {
    configPath: read.text('CONFIG_PATH', () => true, '') ?? 'proxy.toml',
    idleTimeoutMs: idleTimeout(read),
  };
}

function idleTimeout(read: Reader): number {
  // setTimeout's limit: a longer delay fires at once.
  return read.integer('GATEWAY_IDLE_TIMEOUT_MS', 1, 2 ** 31 - 1, 'a whole number of milliseconds, 1 to 2147483647') ?? DEFAULT_IDLE_TIMEOUT_MS;
}

function streamBuffer(read: Reader): number {
  const raw = read.raw('GATEWAY_STREAM_BUFFER_BYTES');
  if (raw === undefined) return DEFAULT_STREAM_BUFFER_BYTES;
  const bytes = Number(raw);
  if (Number.isSafeInteger(bytes) && bytes >= 16 * 1024) return bytes;
  read.problem('GATEWAY_STREAM_BUFFER_BYTES', raw, 'a whole number of bytes, at least 16384');
  return DEFAULT_STREAM_BUFFER_BYTES;
}

/** SSM's parameter names (letters, digits and `_.-/`), an ARN, either with a `:version` or `:label` selector. */
function isParameterName(value: string): boolean {
  return /^[A-Za-z0-9_.\-/:]{1,2048}$/.test(value);
}

/** Reads variables, collecting every problem so one start-up failure lists them all. */
class Reader {
  private readonly problems: string[] = [];

  constructor(private readonly env: Environment) {}

  /** The variable's value; undefined when unset or empty (both mean "the default"). */
  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  text(name: string, valid: (value: string) => boolean, expected: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined || valid(value)) return value;
    this.problem(name, value, expected);
    return undefined;
  }

  integer(name: string, min: number, max: number, expected: string): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
    if (n >= min && n <= max) return n;
    this.problem(name, value, expected);
    return undefined;
  }

  problem(name: string, value: string, expected: string): void {
    this.problems.push(`${name} must be ${expected} (got "${value}")`);
  }

  missing(name: string, why: string): void {
    this.problems.push(`${name} is not set: ${why}`);
  }

  /** `settings` when every variable read was valid; else a ConfigError with one line per problem. */
  done<T>(settings: T): T {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
    return settings;
  }
}
