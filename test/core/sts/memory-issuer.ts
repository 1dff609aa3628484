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
  /** Further issuers served by the same server (`https://b.example`), each with its own documents and the same keys. */
  readonly others: string[];
  /** Bytes of padding added to every JWKS document, to make it that much larger. */
  jwksPadding: number;
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
    others: [],
    jwksPadding: 0,
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
      const other = issuer.others.find((base) => request.url === `${base}/.well-known/openid-configuration`);
      if (other !== undefined) return jsonResponse(200, { issuer: other, jwks_uri: `${other}/jwks` });
      if (request.url.endsWith('/jwks')) {
        return jsonResponse(200, issuer.jwksPadding > 0 ? { ...minter.jwks(), padding: 'x'.repeat(issuer.jwksPadding) } : minter.jwks());
      }
      return jsonResponse(404, {});
    },
  };
  return issuer;
}
