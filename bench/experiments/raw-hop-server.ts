/**
 * Prototype hops that say what node:http's server side costs a small request, for `small-hops.ts`:
 * `node raw-hop-server.js PORT UPSTREAM_URL raw|httpserver`. `raw`: a net server that finds the head's end
 * and splits its lines, and a keep-alive client that does the same. `httpserver`: node:http's server in front
 * of the same client. Neither validates anything, frames anything but Content-Length, nor takes a request
 * body: they are floors to measure against, not servers.
 */
import http from 'node:http';
import net from 'node:net';

const [port, upstream, mode] = process.argv.slice(2);
const target = new URL(upstream);
const CRLF2 = Buffer.from('\r\n\r\n');

interface Answer { head: Buffer; status: number; headers: [string, string][]; length: number; body: Buffer[] }
type Done = (a: Answer) => void;

class Upstream {
  private buf: Buffer = Buffer.alloc(0);
  private pending?: { done: Done; head: boolean };
  private answer?: Answer;
  constructor(readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.data(d));
  }
  send(method: string, path: string, headers: string, done: Done): void {
    this.pending = { done, head: method === 'HEAD' };
    this.socket.write(`${method} ${path} HTTP/1.1\r\n${headers}\r\n`);
  }
  private data(d: Buffer): void {
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    if (this.answer === undefined) {
      const end = this.buf.indexOf(CRLF2);
      if (end < 0) return;
      const text = this.buf.toString('latin1', 0, end);
      const lines = text.split('\r\n');
      const status = Number(lines[0].slice(9, 12));
      const headers: [string, string][] = [];
      let length = 0;
      for (let i = 1; i < lines.length; i++) {
        const c = lines[i].indexOf(':');
        const name = lines[i].slice(0, c);
        const value = lines[i].slice(c + 1).trim();
        if (name.length === 14 && name.toLowerCase() === 'content-length') length = Number(value);
        headers.push([name, value]);
      }
      if (this.pending?.head) length = 0;
      this.answer = { head: this.buf.subarray(0, end + 4), status, headers, length, body: [] };
      this.buf = this.buf.subarray(end + 4);
    }
    const a = this.answer;
    let have = 0;
    for (const b of a.body) have += b.length;
    if (this.buf.length > 0) {
      a.body.push(this.buf);
      have += this.buf.length;
      this.buf = Buffer.alloc(0);
    }
    if (have >= a.length) {
      this.answer = undefined;
      const p = this.pending;
      this.pending = undefined;
      idle.push(this);
      p?.done(a);
    }
  }
}
const idle: Upstream[] = [];
function upstreamConn(cb: (u: Upstream) => void): void {
  const u = idle.pop();
  if (u) return cb(u);
  const s = net.connect(Number(target.port), target.hostname, () => cb(new Upstream(s)));
}

function forward(method: string, path: string, headerLines: string, reply: (a: Answer) => void): void {
  upstreamConn((u) => u.send(method, path, headerLines, reply));
}

if (mode === 'raw') {
  net
    .createServer((socket) => {
      socket.setNoDelay(true);
      let buf: Buffer = Buffer.alloc(0);
      socket.on('data', (d: Buffer) => {
        buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
        for (;;) {
          const end = buf.indexOf(CRLF2);
          if (end < 0) return;
          const text = buf.toString('latin1', 0, end);
          buf = buf.subarray(end + 4);
          const nl = text.indexOf('\r\n');
          const [method, path] = text.slice(0, nl).split(' ');
          const lines = text.slice(nl + 2).split('\r\n');
          let out = '';
          for (const line of lines) {
            const c = line.indexOf(':');
            const name = line.slice(0, c).toLowerCase();
            if (name === 'host' || name === 'connection') continue;
            out += `${name}: ${line.slice(c + 1).trim()}\r\n`;
          }
          out += `host: ${target.host}\r\n`;
          forward(method, path, out, (a) => {
            let head = `HTTP/1.1 ${a.status} OK\r\n`;
            for (const [n, v] of a.headers) head += `${n}: ${v}\r\n`;
            head += '\r\n';
            if (a.body.length === 0) socket.write(head);
            else {
              socket.cork();
              socket.write(head);
              for (const b of a.body) socket.write(b);
              socket.uncork();
            }
          });
        }
      });
    })
    .listen(Number(port), '127.0.0.1');
} else {
  http
    .createServer((req, res) => {
      let out = '';
      const raw = req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i].toLowerCase();
        if (name === 'host' || name === 'connection') continue;
        out += `${name}: ${raw[i + 1]}\r\n`;
      }
      out += `host: ${target.host}\r\n`;
      forward(req.method ?? 'GET', req.url ?? '/', out, (a) => {
        const flat: string[] = [];
        for (const [n, v] of a.headers) if (n.toLowerCase() !== 'connection') flat.push(n, v);
        res.writeHead(a.status, flat);
        res.end(a.body.length === 1 ? a.body[0] : a.body.length === 0 ? undefined : Buffer.concat(a.body));
      });
    })
    .listen(Number(port), '127.0.0.1');
}
