/** The bare node:http hop (bench/node-hop.ts): `node node-hop-server.js PORT UPSTREAM_URL`. */
import http from 'node:http';

const [port, upstream] = process.argv.slice(2);
const target = new URL(upstream);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

http
  .createServer((req, res) => {
    const forward = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  })
  .listen(Number(port), '127.0.0.1');
