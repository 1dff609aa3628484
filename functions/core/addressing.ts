/**
 * Virtual-hosted–style addressing: which bucket a request's `Host` names. With `virtual_host_domains` set,
 * `{bucket}.{domain}` addresses bucket `{bucket}` and its path is the key; the bare domain is the service
 * (ListBuckets, STS) and path-style buckets under it; any other host (an IP address, a Function URL's own
 * name) is path-style, as without the setting. Signatures are always verified over the Host and path as sent: this only decides routing.
 */
import type { ReadonlyHeaders } from './http';

/** How a request addresses its bucket: in its path (also on the bare domain), or in its Host. */
export type Addressing = { readonly style: 'path' } | { readonly style: 'virtual'; readonly bucket: string };

const PATH_STYLE: Addressing = { style: 'path' };

/**
 * The addressing of a request with Host `host` on a gateway serving `domains` (lower-case).
 *
 * @example addressingOf('data.gw.example.com:8443', ['gw.example.com']) // { style: 'virtual', bucket: 'data' }
 */
export function addressingOf(host: string | null, domains: readonly string[] | undefined): Addressing {
  if (host === null || domains === undefined || domains.length === 0) return PATH_STYLE;
  const name = hostName(host);
  for (const domain of domains) {
    if (name === domain) return PATH_STYLE;
    if (name.length > domain.length + 1 && name.endsWith(domain) && name[name.length - domain.length - 1] === '.') {
      return { style: 'virtual', bucket: name.slice(0, name.length - domain.length - 1) };
    }
  }
  return PATH_STYLE;
}

/** The request's addressing, from its Host header. */
export function requestAddressing(headers: ReadonlyHeaders, domains: readonly string[] | undefined): Addressing {
  return domains === undefined ? PATH_STYLE : addressingOf(headers.get('host'), domains);
}

/** A Host header's name: lower-case, without port or a trailing dot (an IPv6 literal keeps its brackets). */
function hostName(host: string): string {
  let name = host.trim().toLowerCase();
  if (!name.startsWith('[')) {
    const colon = name.lastIndexOf(':');
    if (colon >= 0) name = name.slice(0, colon);
  }
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/**
 * The path-style path of a request: the raw path itself, or under `/{bucket}` for a virtual-hosted one
 * (the bucket, a DNS name, needs no percent-encoding).
 *
 * @example pathStylePath('/photos/a%20b.jpg', { style: 'virtual', bucket: 'data' }) // '/data/photos/a%20b.jpg'
 */
export function pathStylePath(rawPath: string, addressing: Addressing): string {
  return addressing.style === 'virtual' ? `/${addressing.bucket}${rawPath}` : rawPath;
}
