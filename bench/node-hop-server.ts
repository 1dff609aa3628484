/**
 * The bare node:http hop (bench/node-hop.ts): `node node-hop-server.js PORT UPSTREAM_URL [buffer]`. With
 * `buffer` it holds each answer until it has ended and sends it whole, as a gateway that rewrites a document
 * must (bench/experiments/buffered-hop.ts measures what that costs by itself).
 */
import http from 'node:http';

const [port, upstream, mode] = process.argv.slice(2);
const target = new URL(upstream);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
const buffered = mode === 'buffer';

http
  .createServer((req, res) => {
    const forward = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      if (buffered) return sendWhole(answer, res);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  })
  .listen(Number(port), '127.0.0.1');

function sendWhole(answer: http.IncomingMessage, res: http.ServerResponse): void {
  const chunks: Buffer[] = [];
  answer.on('data', (chunk: Buffer) => chunks.push(chunk));
  answer.on('end', () => {
    const body = Buffer.concat(chunks);
    const headers = { ...answer.headers, 'content-length': String(body.length) };
    delete headers['transfer-encoding'];
    res.writeHead(answer.statusCode ?? 502, headers);
    res.end(body);
  });
}
