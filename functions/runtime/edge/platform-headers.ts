import { normalizedTo, type PlatformHeaders } from '../../core/sigv4/platform-headers';

/**
 * What Cloudflare does to request headers before a Worker sees them, for the verifier
 * (core/sigv4/platform-headers.ts).
 *
 * `Accept-Encoding` is always `br, gzip` in a Worker; the client's value is kept in
 * `request.cf.clientAcceptEncoding` (developers.cloudflare.com/fundamentals/reference/http-headers/;
 * miniflare does the same since workers-sdk#5409), and the adapter hands the core that value
 * (runtime/edge/request.ts), so a client that signed `gzip` (rclone, Go's net/http) is verified over `gzip`,
 * and a signature over any other value than the one the client sent fails. Only where the platform did not
 * keep it (no `cf.clientAcceptEncoding`) is the arrived `br, gzip` also checked against the values clients are
 * known to send: an exact value from this list, never any value.
 */
export const CLOUDFLARE_ACCEPT_ENCODINGS: readonly string[] = [
  'gzip', // rclone, Go's net/http, s3cmd
  'br',
  'identity', // botocore
  'gzip, deflate', // python-requests, urllib3
  'gzip, deflate, br',
  'gzip, deflate, br, zstd', // browsers
  'deflate, gzip, br, zstd', // curl --compressed
  'gzip,deflate', // Java HTTP clients
  'br, gzip',
];

/** Where `request.cf.clientAcceptEncoding` kept the client's value (always, on the platform): nothing to invert. */
export const CLOUDFLARE_HEADERS: PlatformHeaders = {
  platform: 'Cloudflare Workers',
  dropped: new Set(),
  rewritten: new Map(),
};

/** Where it did not: the arrived `br, gzip` also checked against the listed values. */
export const CLOUDFLARE_HEADERS_WITHOUT_CF: PlatformHeaders = {
  ...CLOUDFLARE_HEADERS,
  rewritten: new Map([['accept-encoding', normalizedTo('br, gzip', CLOUDFLARE_ACCEPT_ENCODINGS)]]),
};
