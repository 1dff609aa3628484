import { ChunkedBody } from './chunked';
import { WireResponse } from './response';
import { INVALID_VALUE, ProtocolError, TOKEN } from './syntax';

/** How a response's body is delimited. `left` counts down as a length-framed body arrives. */
export type BodyFraming = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked'; body: ChunkedBody } | { kind: 'close' };

/** Takes a final answer's head: the response to hand on, how its body is framed, whether the connection stays. */
export interface HeadReceiver {
  announce(response: WireResponse, framing: BodyFraming, keepAlive: boolean): void;
}

/**
 * Parses one head (its text up to, not including, the blank line), validated as node:http would, and hands a
 * final answer to `receiver`. Returns false for an interim 1xx answer (100 Continue), which precedes the real
 * one. Headers are kept as node:http keeps them: names lower-case, repeats joined with `, `, Set-Cookie as a
 * list. Handed over rather than returned as one object: measured, V8 pretenured such a result object when a
 * server started under load (it then went to the old space for every response, ~15 µs more CPU per small GET).
 *
 * @param method The request's: a HEAD's answer has no body whatever its length says.
 * @param highWaterMark How much of the body the response buffers before the socket pauses.
 */
export function parseResponseHead(text: string, method: string, highWaterMark: number, receiver: HeadReceiver): boolean {
  const lines = text.split('\r\n');
  const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0]);
  if (statusLine === null) throw new ProtocolError('The backend sent an invalid status line');
  const status = Number(statusLine[2]);
  if (status >= 100 && status < 200) return false;
  const response = new WireResponse({ highWaterMark });
  response.statusCode = status;
  const { headers } = response;
  let length: string | undefined;
  let transfer: string | undefined;
  let connection = '';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).toLowerCase() : '';
    if (!TOKEN.test(name)) throw new ProtocolError('The backend sent an invalid header line');
    const value = line.slice(colon + 1).trim();
    if (INVALID_VALUE.test(value)) throw new ProtocolError('The backend sent an invalid header value');
    if (name === 'content-length') {
      if (length !== undefined && length !== value) throw new ProtocolError('The backend sent conflicting lengths');
      length = value;
    } else if (name === 'transfer-encoding') transfer = transfer === undefined ? value : `${transfer}, ${value}`;
    else if (name === 'connection') connection = value.toLowerCase();
    const previous = headers[name];
    if (previous === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
    else if (Array.isArray(previous)) previous.push(value);
    else if (name !== 'content-length') headers[name] = `${previous}, ${value}`;
  }
  const persistent = statusLine[1] === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
  const framing = framingOf(method, status, length, transfer);
  // A body delimited by the connection's end leaves no connection to reuse.
  receiver.announce(response, framing, persistent && framing.kind !== 'close');
  return true;
}

function framingOf(method: string, status: number, length: string | undefined, transfer: string | undefined): BodyFraming {
  if (method === 'HEAD' || status === 204 || status === 304) return { kind: 'none' };
  if (transfer !== undefined) {
    if (length !== undefined) throw new ProtocolError('The backend sent both a length and a transfer encoding');
    if (/(?:^|,)\s*chunked\s*$/i.test(transfer)) return { kind: 'chunked', body: new ChunkedBody() };
    return { kind: 'close' };
  }
  if (length !== undefined) {
    if (!/^\d{1,15}$/.test(length)) throw new ProtocolError('The backend sent an invalid content-length');
    return { kind: 'length', left: Number(length) };
  }
  return { kind: 'close' };
}
