import type http from 'node:http';

/**
 * Keeps node:http from sending `Keep-Alive: timeout=N` with the `Connection: keep-alive` of an HTTP/1.1
 * answer, as Cloudflare and Lambda's fronts answer. `Keep-Alive` is a hop-by-hop header that a front removes
 * from requests, and some clients copy an answer's headers into their next signed request: s3cmd `modify`
 * signs `Keep-Alive` from its HEAD answer (it leaves out `Connection`), then the front drops it and the
 * signature fails ("Signed header keep-alive is not present"). Node adds `Keep-Alive` only when it writes
 * `Connection` itself, so the server states it first; a connection that must end (a drain, a client that
 * asked to close) still says `Connection: close`. Call it once the server's `checkContinue` and
 * `checkExpectation` listeners, if any, are added.
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
