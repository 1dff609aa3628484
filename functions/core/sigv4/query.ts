/**
 * The raw query string as S3 reads it for SigV4. `URLSearchParams` is not used: it turns `+` into a space,
 * while S3 clients send a space as `%20` and a literal `+` may arrive unencoded.
 */

/** One `name=value` part of a raw query, both still percent-encoded. A flag without `=` has value `''`. */
export interface RawQueryParam {
  readonly rawName: string;
  readonly rawValue: string;
}

/** Splits on `&`, then on the first `=`; empty parts (`a=1&&b=2`) carry nothing and are skipped. */
export function splitQuery(rawQuery: string): RawQueryParam[] {
  const params: RawQueryParam[] = [];
  if (rawQuery === '') return params;
  let start = 0;
  while (start <= rawQuery.length) {
    let end = rawQuery.indexOf('&', start);
    if (end < 0) end = rawQuery.length;
    if (end > start) {
      const eq = rawQuery.indexOf('=', start);
      params.push(
        eq < 0 || eq > end
          ? { rawName: rawQuery.slice(start, end), rawValue: '' }
          : { rawName: rawQuery.slice(start, eq), rawValue: rawQuery.slice(eq + 1, end) },
      );
    }
    start = end + 1;
  }
  return params;
}

/**
 * Percent-decodes one query component, `+` staying a `+`. Text that is not valid percent-encoded UTF-8
 * (`%zz`, `%C3`) is kept as written, so such a request is still judged by its signature rather than rejected.
 */
export function decodeQueryComponent(raw: string): string {
  if (raw.indexOf('%') < 0) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The decoded value of the first parameter whose decoded name is `name`, or undefined. */
export function queryParam(rawQuery: string, name: string): string | undefined {
  for (const { rawName, rawValue } of splitQuery(rawQuery)) {
    if (decodeQueryComponent(rawName) === name) return decodeQueryComponent(rawValue);
  }
  return undefined;
}
