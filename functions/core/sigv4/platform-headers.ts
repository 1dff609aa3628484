import type { ReadonlyHeaders } from '../http';
/**
 * Request headers a runtime's platform changes before the gateway sees them, as data the runtime hands the
 * verifier (one table per runtime, in functions/runtime/<name>/platform-headers.ts). SigV4 signs header values
 * exactly, so a header the platform rewrote fails the signature of a client that signed it. The verifier stays
 * exact: it accepts a rewritten value only where the platform's own, documented normalization maps one of a
 * few listed client values to it, and a signature over any other value still fails. A platform that keeps the
 * client's value elsewhere (Cloudflare's `request.cf.clientAcceptEncoding`) needs no rule here: its adapter
 * hands the core the value the client sent.
 */

/** What the platform does to one header (lower-case name) before the gateway sees it. */
export interface HeaderRewrite {
  /**
   * The values a client may have signed that the platform turns into `arrived` (the arrived value itself
   * excluded): the inverse of the platform's normalization over the values clients are known to send. Empty
   * when `arrived` is not a value the platform produces.
   */
  readonly signedValues: (arrived: string) => readonly string[];
}

/** One runtime's table: headers its platform removes, and headers it rewrites. */
export interface PlatformHeaders {
  /** The platform's name, for the error a client gets. */
  readonly platform: string;
  /**
   * Lower-case names whose client value never reaches the gateway (the platform removes them, or replaces
   * them with its own): a signature over one cannot be verified, and the refusal says why.
   */
  readonly dropped: ReadonlySet<string>;
  /** Lower-case names the platform rewrites, with how: a map, so a name like `constructor` finds nothing. */
  readonly rewritten: ReadonlyMap<string, HeaderRewrite>;
}

/** No platform in front (the Node server): every header arrives as sent. */
export const NO_PLATFORM_HEADERS: PlatformHeaders = { platform: 'none', dropped: new Set(), rewritten: new Map() };

/** A header whose value the platform replaces with one fixed value, from any of `from`. */
export function normalizedTo(value: string, from: readonly string[]): HeaderRewrite {
  const others = from.filter((v) => v !== value);
  return { signedValues: (arrived) => (arrived === value ? others : []) };
}

/** At most this many combinations of rewritten values are tried, so a request cannot make the gateway hash at will. */
const MAX_VARIANTS = 8;

/**
 * The header views to verify a signature over besides the one that arrived: each signed, rewritten header
 * replaced by a value its client may have signed. Usually none (no signed header was rewritten).
 */
export function signedHeaderVariants(headers: ReadonlyHeaders, signedHeaders: readonly string[], rules: PlatformHeaders): ReadonlyHeaders[] {
  let variants: Array<Readonly<Record<string, string>>> = [{}];
  for (const name of signedHeaders) {
    const rewrite = rules.rewritten.get(name);
    const arrived = headers.get(name);
    if (rewrite === undefined || arrived === null) continue;
    const values = rewrite.signedValues(arrived);
    if (values.length === 0) continue;
    variants = variants.flatMap((v) => [v, ...values.map((value) => ({ ...v, [name]: value }))]).slice(0, MAX_VARIANTS + 1);
  }
  return variants.slice(1).map((overrides) => withValues(headers, overrides));
}

function withValues(headers: ReadonlyHeaders, overrides: Readonly<Record<string, string>>): ReadonlyHeaders {
  const get = (name: string): string | null => {
    const lower = name.toLowerCase();
    return Object.hasOwn(overrides, lower) ? overrides[lower]! : headers.get(name);
  };
  return {
    get,
    has: (name) => headers.has(name),
    forEach: (callback) => headers.forEach((value, name) => callback(get(name) ?? value, name)),
  };
}
