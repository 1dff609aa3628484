/** HTTP/1.1 syntax both directions check, as node:http does: tokens, field values, request targets. */

export { TOKEN } from '../../../core/http';

/** A character no header value may carry (controls other than tab). */
export const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** A character a request target must not carry unescaped (controls, space, beyond Latin-1). */
export const INVALID_TARGET = /[^\u0021-\u00ff]/;

/** The backend broke HTTP/1.1: the exchange fails and its connection is never reused. */
/** The backend's answer is not valid HTTP/1.1 (a folded or malformed header line, a control character, bad framing). */
export class ProtocolError extends Error {}
