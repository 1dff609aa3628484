import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCertificates } from './oidc-issuer';

/**
 * A TLS front for a plain-HTTP server on loopback, as a load balancer terminating HTTPS would be: it relays
 * every request to its target (`relayTo`), unchanged but for the Host (the target's), and records what
 * passed. Its certificate comes from a throwaway CA
 * (made like the test OIDC issuer's), so a process trusting `caPath` through NODE_EXTRA_CA_CERTS reaches it
 * over real TLS. Used to give a gateway an `https://` issuer URL: the gateway's own STS fetches an issuer's
 * discovery document and JWKS over https only.
 */
export interface HttpsFront {
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** The CA certificate (PEM file) to put in NODE_EXTRA_CA_CERTS. */
  readonly caPath: string;
  /** Method and path of every request relayed so far. */
  readonly requests: Array<{ readonly method: string; readonly path: string }>;
  /**
   * Where requests go from now on. A front can start before its target, so the target needs no port chosen
   * in advance (a port picked free and bound later may be taken by then); until set, requests get 502.
   */
  relayTo(target: string): void;
  stop(): Promise<void>;
}

export async function startHttpsFront(): Promise<HttpsFront> {
  let upstream: URL | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'https-front-'));
  const certs = makeCertificates(dir);
  const requests: Array<{ method: string; path: string }> = [];
  const server = https.createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '' });
    if (upstream === undefined) {
      res.writeHead(502).end();
      return;
    }
    const forward = http.request(
      // With the target's Host, as CloudFront forwards to an origin that routes on it (a Web Function does).
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caPath: certs.ca,
    requests,
    relayTo: (next) => {
      upstream = new URL(next);
    },
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
