import http from 'node:http';
import { closeAfter, omitKeepAliveHeaders } from '../../functions/runtime/node/keep-alive';
import { writeHead } from '../../functions/runtime/node/listener';

/**
 * What Cloudflare's front line does for a Worker that workerd's own HTTP server, which miniflare listens
 * with, does not; the local runner puts this front before it so clients meet the platform's behaviour:
 * - `Expect: 100-continue` is answered with `100 Continue` (node:http's default, as Cloudflare's front and
 *   any proxy that forwards the body do). workerd never answers it (curl waits its 1 s; the JS SDK, which
 *   sends Expect above 2 MB, waits 6 s before each 5 MiB part), and a Worker cannot send an interim
 *   response itself.
 * - A response marked `Cache-Control: no-transform` reaches the client as the worker sent it. miniflare
 *   copies Cloudflare's compression by content type but ignores `no-transform`, which Cloudflare honours;
 *   the worker marks every answer Cloudflare would compress or decode (runtime/edge/no-transform.ts) and
 *   Cloudflare changes no other, so the front hands miniflare the client's `Accept-Encoding` as Cloudflare
 *   hands it to a Worker, in `request.cf.clientAcceptEncoding` (miniflare's `MF-CF-Blob`), and no header
 *   for it to compress by. The worker still sees `br, gzip`.
 * - Hop-by-hop headers end here in both directions. An answer given before the client's body ended closes
 *   the connection, as workerd does.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'expect', 'te', 'trailer', 'upgrade', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization']);

/** miniflare's header for the request's `cf` object (its CoreHeaders.CF_BLOB). */
const CF_BLOB = 'mf-cf-blob';

export function createEdgeFront(target: URL): http.Server {
  // A connection per request: a pooled one that workerd has just closed fails the next request (a 502 seen
  // under aws-cli's ten concurrent parts), and loopback connections cost nothing worth saving.
  const agent = new http.Agent({ keepAlive: false });
  return omitKeepAliveHeaders(http.createServer((req, res) => forward(target, agent, req, res)));
}

function forward(target: URL, agent: http.Agent, req: http.IncomingMessage, res: http.ServerResponse): void {
  const headers: string[] = [];
  let acceptEncoding: string | undefined;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (lower === 'accept-encoding') acceptEncoding = acceptEncoding === undefined ? req.rawHeaders[i + 1] : `${acceptEncoding},${req.rawHeaders[i + 1]}`;
    else if (!HOP_BY_HOP.has(lower) && lower !== CF_BLOB) headers.push(name, req.rawHeaders[i + 1]!);
  }
  headers.push(CF_BLOB, JSON.stringify({ clientAcceptEncoding: acceptEncoding ?? '' }));
  const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (answer) => {
    const back: Record<string, string> = {};
    for (let i = 0; i < answer.rawHeaders.length; i += 2) {
      const name = answer.rawHeaders[i]!.toLowerCase();
      if (!HOP_BY_HOP.has(name)) back[name] = back[name] === undefined ? answer.rawHeaders[i + 1]! : `${back[name]}, ${answer.rawHeaders[i + 1]}`;
    }
    // An answer given before the client's body ended (a refusal, a body that stopped arriving) ends the
    // connection, as workerd ends it: what is left of the body cannot be told from a next request.
    if (!req.complete || /\bclose\b/i.test(answer.headers.connection ?? '')) closeAfter(res);
    // The Node server's own writer: it passes non-ASCII bytes (UTF-8 filenames) on as they came.
    writeHead(res, answer.statusCode ?? 502, back);
    answer.pipe(res);
    answer.once('error', () => res.destroy());
  });
  upstream.once('error', (err: NodeJS.ErrnoException) => {
    console.error(JSON.stringify({ time: new Date().toISOString(), message: 'edge front: the worker did not answer', code: err.code ?? err.message }));
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('The worker is not reachable\n');
    else res.destroy();
  });
  // A client that goes away cancels the worker's request, as on the platform.
  res.once('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}
