import type http from 'node:http';

/**
 * Keeps node:http from sending `Keep-Alive: timeout=N` with the `Connection: keep-alive` of an HTTP/1.1
 * answer, as Cloudflare and Lambda's fronts answer. `Keep-Alive` is a hop-by-hop header that a front removes
 * from requests, and some clients copy an answer's headers into their next signed request: s3cmd `modify`
 * signs `Keep-Alive` from its HEAD answer (it leaves out `Connection`), then the front drops it and the
 * signature fails ("Signed header keep-alive is not present"). Node adds `Keep-Alive` only when it writes
 * `Connection` itself, so the server states it first; a connection that must end (a drain, a client that
 * asked to close) still says `Connection: close`. Call it once the server's `checkContinue` and
 * `checkExpectation` listeners, if any, are added. For the local fronts' servers; the gateway's own states
 * the value with its head (`connectionHeader`).
 */
export function omitKeepAliveHeaders(server: http.Server): http.Server {
  const omit = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (req.httpVersion === '1.1' && res.shouldKeepAlive) res.setHeader('connection', 'keep-alive');
  };
  server.prependListener('request', omit);
  // A request with `Expect` is announced by one of these instead of 'request' when the server handles them
  // itself; a listener added here would take that over.
  for (const event of ['checkContinue', 'checkExpectation']) if (server.listenerCount(event) > 0) server.prependListener(event, omit);
  return server;
}

/** Ends the connection after this response and says so (`Connection: close`), whatever was decided before. */
export function closeAfter(res: http.ServerResponse): void {
  res.shouldKeepAlive = false;
  res.setHeader('connection', 'close');
}

/**
 * The same for the gateway's own server, as the `Connection` value its answer states itself (see above).
 * `closing` (a drain): the connection ends after this answer and says so. Undefined: Node decides (an
 * HTTP/1.0 client, or one that asked to close). Handed to `writeHead` with the other headers rather than set
 * with `setHeader` beforehand: a header set beforehand makes `writeHead` set every other one the same way,
 * validating and storing each twice (a head of eleven headers in a tight loop: 1.8 -> 1.0 µs).
 */
export function connectionHeader(req: http.IncomingMessage, res: http.ServerResponse, closing: boolean): 'keep-alive' | 'close' | undefined {
  if (closing) {
    res.shouldKeepAlive = false;
    return 'close';
  }
  return req.httpVersion === '1.1' && res.shouldKeepAlive ? 'keep-alive' : undefined;
}
