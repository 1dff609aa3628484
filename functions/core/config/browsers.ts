/**
 * What the configuration says about browsers and data tools: CORS rules (`[[cors_rules]]` gateway-wide,
 * `[[buckets.cors_rules]]` per bucket, `sts_cors`), the gateway's domains for virtual-hosted–style
 * addressing (`virtual_host_domains`) and the SigV2 presigned-URL switch (`sigv2_presigned_urls`).
 */
import { CORS_METHODS, type CorsMethod, type CorsRule, type PathMapping } from './types';
import type { Reader } from './reader';
import { TOKEN } from '../http';

/** S3 allows at most 100 rules in a bucket's CORS configuration. */
const MAX_CORS_RULES = 100;

/** A header name (RFC 9110 token) with at most one `*` wildcard. */
const HEADER_PATTERN = /^[!#$%&'+\-.^_`|~0-9A-Za-z]*\*?[!#$%&'+\-.^_`|~0-9A-Za-z]*$/;

/** The rules in `field` of `t` (absent: undefined), each validated with its entry named. */
export function readCorsRules(t: Reader, field: string): CorsRule[] | undefined {
  if (!t.has(field)) return undefined;
  const tables = t.tables(field);
  if (tables.length > MAX_CORS_RULES) t.problem(field, `must hold at most ${MAX_CORS_RULES} rules (S3's limit)`);
  return tables.map(readCorsRule);
}

function readCorsRule(t: Reader): CorsRule {
  t.allowOnly(['allowed_origins', 'allowed_methods', 'allowed_headers', 'expose_headers', 'max_age_seconds']);
  const origins = t.stringArray('allowed_origins');
  if (origins.length === 0) t.problem('allowed_origins', 'must name at least one origin (or "*")');
  for (const origin of origins) {
    if (origin === '' || countStars(origin) > 1 || /[\s,]/.test(origin)) {
      t.problem('allowed_origins', `"${origin}" must be an origin such as "https://app.example.com", with at most one "*"`);
    }
  }
  const methods = t.stringArray('allowed_methods');
  if (methods.length === 0) t.problem('allowed_methods', `must name at least one of ${CORS_METHODS.join(', ')}`);
  for (const method of methods) {
    if (!(CORS_METHODS as readonly string[]).includes(method)) t.problem('allowed_methods', `"${method}" is not one of ${CORS_METHODS.join(', ')}`);
  }
  const headers = t.stringArray('allowed_headers');
  for (const header of headers) {
    if (header === '' || !HEADER_PATTERN.test(header)) t.problem('allowed_headers', `"${header}" must be a header name with at most one "*"`);
  }
  const expose = t.stringArray('expose_headers');
  for (const header of expose) {
    if (!TOKEN.test(header) || header.includes('*')) t.problem('expose_headers', `"${header}" must be a header name (no wildcard)`);
  }
  const maxAge = t.optionalInteger('max_age_seconds');
  if (maxAge !== undefined && maxAge < 0) t.problem('max_age_seconds', 'must be a non-negative integer (seconds)');
  return {
    allowedOrigins: origins,
    allowedMethods: methods as CorsMethod[],
    allowedHeaders: headers.map((h) => h.toLowerCase()),
    exposeHeaders: expose,
    ...(maxAge !== undefined && maxAge >= 0 ? { maxAgeSeconds: maxAge } : {}),
  };
}

function countStars(text: string): number {
  return text.split('*').length - 1;
}

/** A DNS name of letters, digits and hyphens, in labels joined by dots. */
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * `virtual_host_domains`: lower-case DNS names without scheme, port or wildcard. Refused together with
 * `[path_mapping]`, whose multi-segment bucket names cannot be a host label.
 */
export function readVirtualHostDomains(t: Reader, pathMapping: PathMapping | undefined): string[] | undefined {
  if (!t.has('virtual_host_domains')) return undefined;
  const domains = t.stringArray('virtual_host_domains');
  for (const domain of domains) {
    if (!DOMAIN.test(domain)) {
      t.problem('virtual_host_domains', `"${domain}" must be a lower-case domain name such as "s3.example.com" (no scheme, port, or "*")`);
    }
  }
  if (new Set(domains).size !== domains.length) t.problem('virtual_host_domains', 'names a domain more than once');
  if (pathMapping && domains.length > 0) {
    t.problem('virtual_host_domains', 'cannot be combined with [path_mapping] (a mapped bucket name spans several path segments, never one host label)');
  }
  return domains;
}
