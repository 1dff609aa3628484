import type http from 'node:http';

/**
 * Keeps node:http from announcing `Keep-Alive: timeout=N` (and `Connection: keep-alive`) on HTTP/1.1
 * responses, where persistence is the default and needs neither. Both are hop-by-hop headers that a front
 * removes from requests, and some clients copy an answer's headers into their next signed request: s3cmd
 * `modify` signs `Keep-Alive` from its HEAD answer, then the front drops it and the signature fails
 * ("Signed header keep-alive is not present"). The connection still persists; one that must end (a drain, a
 * client that asked to close) still says `Connection: close`. Call it once the server's `checkContinue` and
 * `checkExpectation` listeners, if any, are added.
 */
export function omitKeepAliveHeaders(server: http.Server): http.Server {
  const omit = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (req.httpVersion === '1.1' && res.shouldKeepAlive) res.removeHeader('connection');
  };
  server.prependListener('request', omit);
  // A request with `Expect` is announced by one of these instead of 'request' when the server handles them
  // itself (call this after adding those listeners); a listener added here would take that over.
  for (const event of ['checkContinue', 'checkExpectation']) if (server.listenerCount(event) > 0) server.prependListener(event, omit);
  return server;
}

/** Ends the connection after this response and says so (`Connection: close`), whatever was decided before. */
export function closeAfter(res: http.ServerResponse): void {
  res.shouldKeepAlive = false;
  res.setHeader('connection', 'close');
}
