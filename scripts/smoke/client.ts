import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { signRequest, type Credentials } from '../../functions/core/sigv4';

/**
 * The smoke checker's HTTP: one request at a time with the path exactly as written (no URL normalization),
 * optionally SigV4-signed with the gateway's own signer, bodies streamed both ways and hashed rather than
 * kept, and every response header as it arrived, so the checks can say what the platform did.
 */

export interface Signer {
  readonly credentials: Credentials;
  readonly region: string;
  readonly service?: string;
}

/** A body to send: bytes, or a stream factory with its length and SHA-256 known in advance. */
export type Body = Buffer | { readonly length: number; readonly sha256: string; readonly open: () => Readable };

export interface Request {
  readonly method: string;
  /** Path (percent-encoded as it should go on the wire) and query, e.g. `/b/a%20b?uploads`. */
  readonly target: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Headers sent but left out of the signature, as SDKs leave out those a front may rewrite. */
  readonly unsignedHeaders?: Readonly<Record<string, string>>;
  readonly body?: Body;
  /** Sign with these keys (the payload's real SHA-256); unsigned without. */
  readonly sign?: Signer;
  /**
   * Send `Expect: 100-continue` and hold the body until the server answers `100 Continue` (or a final status,
   * or `continueWaitMs` passes, as botocore does after a second).
   */
  readonly expectContinue?: boolean;
  readonly continueWaitMs?: number;
}

export interface Reply {
  readonly status: number;
  /** Header names lower-cased; repeated ones joined as Node does. */
  readonly headers: http.IncomingHttpHeaders;
  /** The first 1 MiB of the body. */
  readonly body: Buffer;
  readonly length: number;
  readonly sha256: string;
  /** Whether a `100 Continue` arrived before the final status; undefined when none was asked for. */
  readonly continued?: boolean;
  /** Whether the body was sent at all (an early final answer to Expect stops it). */
  readonly bodySent: boolean;
}

const KEPT_BYTES = 1024 * 1024;

export class SmokeClient {
  private readonly origin: URL;
  private readonly agent: http.Agent;

  constructor(
    endpoint: string,
    private readonly timeoutMs: number,
  ) {
    this.origin = new URL(endpoint);
    this.agent = this.origin.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  /** The endpoint without a trailing slash, as the base of every path. */
  get base(): string {
    return `${this.origin.protocol}//${this.origin.host}${this.origin.pathname.replace(/\/+$/, '')}`;
  }

  close(): void {
    this.agent.destroy();
  }

  async send(request: Request): Promise<Reply> {
    const url = `${this.base}${request.target}`;
    const length = request.body === undefined ? 0 : request.body.length;
    const payloadHash = request.body === undefined ? sha256Of(Buffer.alloc(0)) : Buffer.isBuffer(request.body) ? sha256Of(request.body) : request.body.sha256;
    let headers: Record<string, string> = { ...(request.headers ?? {}) };
    if (request.body !== undefined || request.method === 'PUT' || request.method === 'POST') headers['content-length'] = String(length);
    if (request.sign) {
      headers = await signRequest({
        method: request.method,
        url,
        headers,
        payloadHash,
        credentials: request.sign.credentials,
        region: request.sign.region,
        service: request.sign.service ?? 's3',
        now: Date.now(),
      });
    }
    // Added after signing: SDKs never sign Expect (a hop-by-hop header that fronts remove).
    if (request.expectContinue) headers.expect = '100-continue';
    headers = { ...headers, ...(request.unsignedHeaders ?? {}) };
    const at = new URL(url.replace(/[?#].*$/, ''));
    const transport = at.protocol === 'https:' ? https : http;
    return new Promise<Reply>((resolve, reject) => {
      let continued: boolean | undefined = request.expectContinue ? false : undefined;
      let bodySent = false;
      const req = transport.request({
        protocol: at.protocol,
        hostname: at.hostname,
        port: at.port,
        method: request.method,
        path: request.target.startsWith('/') ? `${this.origin.pathname.replace(/\/+$/, '')}${request.target}` : request.target,
        headers,
        agent: this.agent,
      });
      const timer = setTimeout(() => req.destroy(new Error(`no complete answer within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
      const sendBody = (): void => {
        if (bodySent) return;
        bodySent = true;
        const body = request.body;
        if (body === undefined) req.end();
        else if (Buffer.isBuffer(body)) req.end(body);
        else body.open().pipe(req);
      };
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.on('response', (res) => {
        const hash = createHash('sha256');
        const kept: Buffer[] = [];
        let keptBytes = 0;
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          received += chunk.length;
          if (keptBytes < KEPT_BYTES) {
            kept.push(chunk.subarray(0, KEPT_BYTES - keptBytes));
            keptBytes += Math.min(chunk.length, KEPT_BYTES - keptBytes);
          }
        });
        res.on('end', () => {
          clearTimeout(timer);
          // The request may still be writing when an early answer arrived: stop it.
          if (!req.writableFinished) req.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(kept), length: received, sha256: hash.digest('hex'), continued, bodySent });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      });
      if (request.expectContinue) {
        req.on('continue', () => {
          continued = true;
          sendBody();
        });
        req.flushHeaders();
        const wait = setTimeout(sendBody, request.continueWaitMs ?? 1000);
        req.once('response', () => clearTimeout(wait));
        req.once('continue', () => clearTimeout(wait));
      } else {
        sendBody();
      }
    });
  }
}

export function sha256Of(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * `size` bytes of test data generated block by block (each MiB differs, so a reordered or repeated part
 * changes the hash), with its SHA-256 computed up front by generating it once.
 */
export function generatedBody(size: number, seed: number): Extract<Body, { open: () => Readable }> {
  const BLOCK = 1024 * 1024;
  const block = (i: number): Buffer => {
    const b = Buffer.alloc(Math.min(BLOCK, size - i * BLOCK));
    for (let j = 0; j < b.length; j += 4096) b.writeUInt32BE(((seed * 1_000_003 + i * 4099 + j) >>> 0) % 0xffffffff, Math.min(j, b.length - 4));
    return b;
  };
  const blocks = Math.ceil(size / BLOCK);
  const hash = createHash('sha256');
  for (let i = 0; i < blocks; i++) hash.update(block(i));
  return {
    length: size,
    sha256: hash.digest('hex'),
    open: () =>
      Readable.from(
        (function* () {
          for (let i = 0; i < blocks; i++) yield block(i);
        })(),
      ),
  };
}

/** The bytes of a generated body (for multipart parts, which are sliced). */
export async function bytesOf(body: Extract<Body, { open: () => Readable }>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body.open()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
