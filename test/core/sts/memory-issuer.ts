import type { BackendClient, BackendRequest } from '../../../functions/core/http';
import { TokenMinter, type MintOptions } from '../../support/oidc-issuer';

/**
 * The issuer's two documents served in memory through the core's BackendClient seam, so core tests check
 * discovery, caching and verification with the clock frozen. Real keys and real jose tokens; only the
 * transport is in memory (the e2e suite runs the same documents over TLS).
 */
export const ISSUER = 'https://token.actions.example';

export interface MemoryIssuer {
  readonly client: BackendClient;
  readonly minter: TokenMinter;
  /** URLs requested, in order. */
  readonly requests: string[];
  /** Counts of requests per document. */
  count(kind: 'discovery' | 'jwks'): number;
  /** Makes the issuer unreachable (`down`), answer 500, or point jwks_uri at `http://`. */
  mode: 'ok' | 'down' | 'error' | 'http-jwks' | 'other-issuer';
  mint(options?: MintOptions & { issuer?: string }): Promise<string>;
}

function jsonResponse(status: number, body: unknown) {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  return {
    status,
    headers: new Headers({ 'content-type': 'application/json' }),
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    }),
  };
}

export async function memoryIssuer(): Promise<MemoryIssuer> {
  const minter = await TokenMinter.create();
  const requests: string[] = [];
  const issuer: MemoryIssuer = {
    minter,
    requests,
    mode: 'ok',
    count: (kind) => requests.filter((u) => (kind === 'discovery' ? u.endsWith('/openid-configuration') : u.endsWith('/jwks'))).length,
    mint: (options = {}) => minter.mint(options.issuer ?? ISSUER, options),
    client: async (request: BackendRequest) => {
      requests.push(request.url);
      if (issuer.mode === 'down') throw new Error('connect ECONNREFUSED');
      if (issuer.mode === 'error') return jsonResponse(500, { message: 'oops' });
      if (request.url === `${ISSUER}/.well-known/openid-configuration`) {
        const jwksUri = issuer.mode === 'http-jwks' ? 'http://token.actions.example/jwks' : `${ISSUER}/jwks`;
        return jsonResponse(200, { issuer: issuer.mode === 'other-issuer' ? 'https://elsewhere.example' : ISSUER, jwks_uri: jwksUri });
      }
      if (request.url.endsWith('/jwks')) return jsonResponse(200, minter.jwks());
      return jsonResponse(404, {});
    },
  };
  return issuer;
}
