/**
 * Response header values as plain ASCII, for runtimes that cannot carry other bytes in a header.
 *
 * A value the core holds is either a byte string (one character per received byte, U+0000-U+00FF: what the
 * Node runtimes' HTTP client gives for a backend's header) or text (characters beyond U+00FF: a value the
 * core built from decoded input). Bytes that are valid UTF-8 are read as UTF-8, others as ISO-8859-1 (HTTP's
 * historical charset), and the resulting text is encoded the way its header expects:
 * - `Content-Disposition` parameters (`filename`, ...) as RFC 8187 `filename*=UTF-8''…` next to an ASCII
 *   fallback (RFC 6266 §4.3 and Appendix D), so browsers and SDKs still read the name;
 * - every other header as one RFC 2047 encoded word (`=?UTF-8?B?…?=`), as S3 itself returns non-ASCII user
 *   metadata.
 * Control characters (other than HTAB) become spaces: RFC 9110 §5.5 lets a recipient replace them.
 */
import type { HeaderMap } from './http';

/** Visible ASCII, space and HTAB only: a value any HTTP stack and any JSON-carried prelude passes unchanged. */
const PLAIN_ASCII = /^[\t\x20-\x7e]*$/;
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/g;

/**
 * The headers with every value plain ASCII; the same object when they already are (the usual case).
 *
 * @example asciiHeaders({ 'x-amz-meta-n': 'caf\u00c3\u00a9' }) // { 'x-amz-meta-n': '=?UTF-8?B?Y2Fmw6k=?=' }
 */
export function asciiHeaders(headers: HeaderMap): HeaderMap {
  let out: HeaderMap | undefined;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (PLAIN_ASCII.test(value)) continue;
    out ??= Object.assign({}, headers);
    out[name] = asciiHeaderValue(name, value);
  }
  return out ?? headers;
}

/**
 * One header value as plain ASCII (see the module comment).
 *
 * @example asciiHeaderValue('content-disposition', 'attachment; filename="\u00e6\u0097\u00a5.pdf"')
 *   // 'attachment; filename="_.pdf"; filename*=UTF-8\'\'%E6%97%A5.pdf'
 */
export function asciiHeaderValue(name: string, value: string): string {
  const cleaned = value.replace(CONTROL, ' ');
  if (PLAIN_ASCII.test(cleaned)) return cleaned;
  if (name.toLowerCase() === 'content-disposition') {
    const disposition = encodeDisposition(cleaned);
    if (disposition !== undefined) return disposition;
  }
  return encodedWord(textOf(cleaned));
}

/** The text a value stands for: UTF-8 bytes decoded, other bytes as ISO-8859-1, text as it is. */
function textOf(value: string): string {
  if (/[^\u0000-\u00ff]/.test(value)) return value;
  const bytes = latin1Bytes(value);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return value;
  }
}

function latin1Bytes(value: string): Uint8Array {
  const bytes = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) bytes[i] = value.charCodeAt(i);
  return bytes;
}

const encoder = new TextEncoder();

/** RFC 2047 `=?UTF-8?B?…?=`; one word whatever its length, as S3 writes it. */
function encodedWord(text: string): string {
  let binary = '';
  for (const byte of encoder.encode(text)) binary += String.fromCharCode(byte);
  return `=?UTF-8?B?${btoa(binary)}?=`;
}

/** RFC 8187 attr-char: what an ext-value keeps as it is; everything else is percent-encoded. */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

function percentEncode(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

interface Parameter {
  readonly name: string;
  /** The value, unquoted. */
  readonly value: string;
  /** The parameter as it was written. */
  readonly raw: string;
}

/**
 * `type; name=value; …` with every non-ASCII parameter rewritten: an extended one (`name*`) keeps its
 * charset and has its bytes percent-encoded; a plain one becomes an ASCII fallback plus `name*` (unless the
 * header already has one). Undefined when the value is not a parameter list (the caller encodes it whole).
 */
function encodeDisposition(value: string): string | undefined {
  const parts = splitParameters(value);
  if (parts === undefined || !PLAIN_ASCII.test(parts.type)) return undefined;
  const names = new Set(parts.parameters.map((p) => p.name));
  const out = [parts.type];
  for (const parameter of parts.parameters) {
    if (PLAIN_ASCII.test(parameter.raw)) {
      out.push(parameter.raw);
    } else if (parameter.name.endsWith('*')) {
      out.push(`${parameter.name}=${percentEncodeNonAscii(parameter.value)}`);
    } else {
      const text = textOf(parameter.value);
      out.push(`${parameter.name}="${asciiFallback(text)}"`);
      if (!names.has(`${parameter.name}*`)) out.push(`${parameter.name}*=UTF-8''${percentEncode(encoder.encode(text))}`);
    }
  }
  return out.join('; ');
}

/** An ext-value written with raw bytes: its non-ASCII bytes percent-encoded, the rest kept. */
function percentEncodeNonAscii(value: string): string {
  const bytes = /[^\u0000-\u00ff]/.test(value) ? encoder.encode(value) : latin1Bytes(value);
  let out = '';
  for (const byte of bytes) out += byte < 0x80 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase()}`;
  return out;
}

/** Each non-ASCII character as `_`, quotes and backslashes escaped for a quoted-string. */
function asciiFallback(text: string): string {
  return text.replace(/[^\x20-\x7e]/gu, '_').replace(/["\\]/g, '\\$&');
}

/** Splits `type; a=b; c="d;e"` on the semicolons outside quoted strings; undefined if a quote never closes. */
function splitParameters(value: string): { type: string; parameters: Parameter[] } | undefined {
  const segments: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (quoted && char === '\\' && i + 1 < value.length) {
      current += char + value[++i];
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === ';' && !quoted) {
      segments.push(current.trim());
      current = '';
    } else current += char;
  }
  if (quoted) return undefined;
  segments.push(current.trim());
  const [type, ...rest] = segments;
  const parameters: Parameter[] = [];
  for (const raw of rest) {
    if (raw === '') continue;
    const eq = raw.indexOf('=');
    if (eq <= 0) return undefined;
    const name = raw.slice(0, eq).trim().toLowerCase();
    const written = raw.slice(eq + 1).trim();
    const value = written.startsWith('"') && written.endsWith('"') && written.length >= 2 ? written.slice(1, -1).replace(/\\(.)/g, '$1') : written;
    parameters.push({ name, value, raw });
  }
  return { type, parameters };
}
