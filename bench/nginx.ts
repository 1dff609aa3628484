import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../scripts/ports';
import { spawnServer } from './session';

/**
 * nginx twice over: a static file server standing in for a fast unsigned S3 backend (path-style
 * `/bucket/key` maps onto files), and a plain `proxy_pass` hop with no auth — the floor of what any extra
 * hop costs on this machine.
 */
export interface Nginx {
  readonly filesUrl: string;
  /** One reverse proxy per upstream given at start, in the same order. */
  readonly proxyUrls: readonly string[];
  stop(): Promise<void>;
}

export { freePort };

/** `upstreams` are `host:port` or URLs; `'files'` names this nginx's own file server. */
export async function startNginx(dir: string, root: string, upstreams: readonly string[]): Promise<Nginx> {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const filesPort = await freePort();
  const proxyPorts: number[] = [];
  for (let i = 0; i < upstreams.length; i++) proxyPorts.push(await freePort());
  const proxies = upstreams
    .map((upstream, i) => proxyServer(`u${i}`, upstream === 'files' ? `127.0.0.1:${filesPort}` : upstream, proxyPorts[i]))
    .join('\n');
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nodelay on;
  keepalive_requests 100000;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${filesPort};
    root ${root};
  }
${proxies}
}
`;
  const confPath = join(dir, 'nginx.conf');
  writeFileSync(confPath, conf);
  const child: ChildProcess = spawnServer('nginx', ['-c', confPath, '-p', dir, '-g', 'daemon off;'], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`nginx failed to start (apt-get install nginx): ${err.message}`)));
    const poll = async (attempt: number): Promise<void> => {
      try {
        await fetch(`http://127.0.0.1:${filesPort}/`, { method: 'HEAD' });
        resolve();
      } catch {
        if (attempt > 100) reject(new Error('nginx did not start'));
        else setTimeout(() => void poll(attempt + 1), 50);
      }
    };
    void poll(0);
  });
  return {
    filesUrl: `http://127.0.0.1:${filesPort}`,
    proxyUrls: proxyPorts.map((port) => `http://127.0.0.1:${port}`),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGQUIT');
      await exited;
    },
  };
}

/** A keep-alive `proxy_pass` hop that keeps the client's Host, so SigV4 signatures still verify upstream. */
function proxyServer(name: string, upstream: string, port: number): string {
  return `
  upstream ${name} { server ${upstream.replace(/^https?:\/\//, '')}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 0;
    location / {
      proxy_pass http://${name};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_request_buffering off;
      proxy_buffering off;
    }
  }`;
}
