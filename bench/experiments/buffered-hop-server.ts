/**
 * The bare node:http hop (bench/node-hop-server.ts) with one change for buffered-hop.ts: in `buffer` mode it
 * holds the backend's whole answer and sends it once it has ended, as a gateway that rewrites a document
 * must; `pipe` passes each piece on as it comes. `node buffered-hop-server.js PORT UPSTREAM_URL pipe|buffer`.
 */
import http from 'node:http';

const [port, upstream, mode] = process.argv.slice(2);
const target = new URL(upstream);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

http
  .createServer((req, res) => {
    const forward = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      if (mode === 'pipe') {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        const headers = { ...answer.headers, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        res.writeHead(answer.statusCode ?? 502, headers);
        res.end(body);
      });
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  })
  .listen(Number(port), '127.0.0.1');
