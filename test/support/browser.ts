import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * A real browser for the suites: Debian's Chromium, driven by playwright-core (which never downloads a
 * browser of its own), and a second local origin serving the page the browser runs. Chromium resolves
 * `*.localhost` to loopback itself, so virtual-hosted buckets (`{bucket}.gw.localhost`) need no DNS.
 */
export const CHROMIUM = '/usr/bin/chromium';

/** How this machine runs Chromium headless: no sandbox as root, and no background connections out. */
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Starts Chromium headless with a fresh profile; fails loudly, naming the package, where it is missing. */
export async function startBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The page's own origin: an HTTP server on loopback answering every path with a small HTML page. */
export interface PageServer {
  readonly port: number;
  /** `http://127.0.0.1:{port}`: the origin the CORS rules allow. */
  readonly origin: string;
  /** `http://localhost:{port}`: the same pages from an origin no rule allows. */
  readonly otherOrigin: string;
  stop(): Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>${req.url ?? ''}</title></head><body><p id="where">${(req.url ?? '').replace(/[<&]/g, '')}</p></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    otherOrigin: `http://localhost:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
