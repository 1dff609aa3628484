import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, UnsecuredJWT, exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, type KeyLike } from 'jose';

/**
 * A local OIDC identity provider shaped like GitHub Actions': signing keys and GitHub-shaped tokens
 * (`TokenMinter`), and an HTTPS server publishing discovery and JWKS (`startOidcIssuer`) with a certificate
 * from a throwaway CA made by the `openssl` CLI. The gateway trusts that CA through NODE_EXTRA_CA_CERTS, so
 * it fetches keys over real TLS exactly as it would from token.actions.githubusercontent.com.
 */

/** The audience configure-aws-credentials requests. */
export const GITHUB_AUDIENCE = 'sts.amazonaws.com';

/** Which key (or which forgery) signs a token. */
export type Signer =
  /** RS256 with the published key. */
  | 'primary'
  /** RS256 with a key whose kid is not in the JWKS. */
  | 'unknown'
  /** `alg: none`, no signature. */
  | 'none'
  /** HS256 with the issuer's public key PEM as the HMAC secret, kid of the published key (algorithm confusion). */
  | 'hs256-public-key';

export interface MintOptions {
  /** Claims to add or replace; a claim set to undefined is removed. */
  readonly claims?: Readonly<Record<string, unknown>>;
  readonly signer?: Signer;
  /** Extra protected-header parameters (e.g. `typ`). */
  readonly header?: Readonly<Record<string, unknown>>;
  /** Issue time in milliseconds since the epoch (default: now). */
  readonly at?: number;
  /** Seconds from `at` to `exp` (default 300, as GitHub); negative for an expired token. */
  readonly expiresIn?: number;
  /** Leave `exp` out. */
  readonly omitExp?: boolean;
  /** Seconds from `at` to `nbf` (default: `nbf` = `iat`). */
  readonly notBefore?: number;
}

export interface GithubIdentity {
  /** `ORG/REPO`. */
  readonly repository?: string;
  readonly ref?: string;
  /** The `repo:ORG@ID/REPO@ID:…` subject used by repositories created after 2026-07-15. */
  readonly immutableSubject?: boolean;
}

/**
 * The claims of a GitHub Actions token for a push to `ref` of `repository`.
 *
 * @example githubClaims({ repository: 'acme/widgets' }).sub // 'repo:acme/widgets:ref:refs/heads/main'
 */
export function githubClaims(identity: GithubIdentity = {}): JWTPayload {
  const repository = identity.repository ?? 'acme/widgets';
  const ref = identity.ref ?? 'refs/heads/main';
  const [owner, repo] = repository.split('/');
  const ownerId = '1001';
  const repositoryId = '2002';
  const sub = identity.immutableSubject ? `repo:${owner}@${ownerId}/${repo}@${repositoryId}:ref:${ref}` : `repo:${repository}:ref:${ref}`;
  return {
    jti: crypto.randomUUID(),
    sub,
    aud: GITHUB_AUDIENCE,
    ref,
    sha: 'd6cd1e2bd19e03a81132a23b2025920577f84e37',
    repository,
    repository_owner: owner,
    repository_owner_id: ownerId,
    repository_id: repositoryId,
    repository_visibility: 'private',
    run_id: '5555555555',
    run_number: '42',
    run_attempt: '1',
    actor: 'octocat',
    actor_id: '583231',
    workflow: 'ci',
    event_name: 'push',
    ref_type: 'branch',
    job_workflow_ref: `${repository}/.github/workflows/ci.yml@${ref}`,
    runner_environment: 'github-hosted',
  };
}

/** An issuer's signing keys and a token factory over them. */
export class TokenMinter {
  private constructor(
    private readonly primary: { readonly privateKey: KeyLike; readonly jwk: JWK; readonly pem: string },
    private readonly unknown: KeyLike,
    private readonly extra: JWK[] = [],
  ) {}

  static async create(): Promise<TokenMinter> {
    const primary = await generateKeyPair('RS256', { extractable: true });
    const unknown = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(primary.publicKey)), kid: 'primary-2026', alg: 'RS256', use: 'sig' };
    return new TokenMinter({ privateKey: primary.privateKey, jwk, pem: await exportSPKI(primary.publicKey) }, unknown.privateKey);
  }

  /** The published JWKS (the primary key, plus any added with `publish`). */
  jwks(): { keys: JWK[] } {
    return { keys: [this.primary.jwk, ...this.extra] };
  }

  /** Publishes another key (key rotation), returning a minter signing with it. */
  async rotate(kid: string): Promise<(options: MintOptions & { issuer: string }) => Promise<string>> {
    const pair = await generateKeyPair('RS256', { extractable: true });
    this.extra.push({ ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' });
    return (options) => this.sign(options, pair.privateKey, kid);
  }

  /** A token from `issuer` with GitHub's claims unless `options.claims` says otherwise. */
  async mint(issuer: string, options: MintOptions = {}): Promise<string> {
    const signer = options.signer ?? 'primary';
    if (signer === 'none') return new UnsecuredJWT(this.claims(issuer, options)).encode();
    if (signer === 'hs256-public-key') {
      return new SignJWT(this.claims(issuer, options))
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: this.primary.jwk.kid, ...options.header })
        .sign(new TextEncoder().encode(this.primary.pem));
    }
    if (signer === 'unknown') return this.sign({ ...options, issuer }, this.unknown, 'rotated-away');
    return this.sign({ ...options, issuer }, this.primary.privateKey, this.primary.jwk.kid as string);
  }

  private sign(options: MintOptions & { issuer: string }, key: KeyLike, kid: string): Promise<string> {
    return new SignJWT(this.claims(options.issuer, options)).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid, ...options.header }).sign(key);
  }

  private claims(issuer: string, options: MintOptions): JWTPayload {
    const iat = Math.floor((options.at ?? Date.now()) / 1000);
    const claims: Record<string, unknown> = {
      ...githubClaims(),
      iss: issuer,
      iat,
      nbf: iat + (options.notBefore ?? 0),
      ...(options.omitExp ? {} : { exp: iat + (options.expiresIn ?? 300) }),
      ...options.claims,
    };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
    return claims;
  }
}

export interface OidcIssuer {
  /** `https://127.0.0.1:PORT`: discovery and JWKS over TLS. */
  readonly url: string;
  /** An issuer on the same server whose discovery document points at an `http://` jwks_uri. */
  readonly httpJwksIssuer: string;
  /** The CA certificate (PEM file) to put in NODE_EXTRA_CA_CERTS. */
  readonly caPath: string;
  readonly minter: TokenMinter;
  /** Requests served so far, per document; `other` counts requests for any other path of the https server. */
  readonly fetches: { discovery: number; jwks: number; httpJwks: number; other: number };
  /** A token from this issuer (or `issuer`). */
  mint(options?: MintOptions & { issuer?: string }): Promise<string>;
  stop(): Promise<void>;
}

/** Fails with the Debian package to install when the openssl CLI is missing. */
function requireOpenssl(): void {
  try {
    execFileSync('openssl', ['version'], { stdio: 'pipe' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('The openssl CLI is not installed; the test OIDC issuer needs it for its certificates: apt-get install openssl');
    }
    throw err;
  }
}

/** A CA and a server certificate for 127.0.0.1 / localhost signed by it, in `dir` (also used by `https-front.ts`). */
export function makeCertificates(dir: string): { ca: string; key: string; cert: string } {
  requireOpenssl();
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2',
    '-subj', '/CN=s3-gateway test OIDC CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(
    join(dir, 'server.ext'),
    ['subjectAltName=IP:127.0.0.1,DNS:localhost', 'basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid,issuer'].join('\n') + '\n',
  );
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext');
  return { ca: join(dir, 'ca.pem'), key: readFileSync(join(dir, 'server.key'), 'utf8'), cert: readFileSync(join(dir, 'server.pem'), 'utf8') };
}

function listen(server: http.Server | https.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function json(res: http.ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function discovery(issuer: string, jwksUri: string): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: jwksUri,
    subject_types_supported: ['public', 'pairwise'],
    response_types_supported: ['id_token'],
    claims_supported: ['sub', 'aud', 'exp', 'iat', 'iss', 'jti', 'nbf', 'ref', 'repository', 'repository_owner'],
    id_token_signing_alg_values_supported: ['RS256'],
    scopes_supported: ['openid'],
  };
}

export interface OidcIssuerOptions {
  /**
   * Characters of padding added to the JWKS document (a member its readers ignore), so that whoever keeps a
   * copy of it per request shows in its memory. @default 0
   */
  readonly jwksPadding?: number;
}

/**
 * Starts the issuer on a free loopback port. `stop()` closes both servers and removes the certificates.
 *
 * @example const issuer = await startOidcIssuer(); startGateway('node', { config, env: { NODE_EXTRA_CA_CERTS: issuer.caPath } });
 */
export async function startOidcIssuer(options: OidcIssuerOptions = {}): Promise<OidcIssuer> {
  const dir = mkdtempSync(join(tmpdir(), 'oidc-issuer-'));
  const certs = makeCertificates(dir);
  const minter = await TokenMinter.create();
  const fetches = { discovery: 0, jwks: 0, httpJwks: 0, other: 0 };
  let url = '';
  let httpUrl = '';
  const plain = http.createServer((req, res) => {
    if (req.url === '/jwks') {
      fetches.httpJwks++;
      return json(res, minter.jwks());
    }
    res.writeHead(404).end();
  });
  const secure = https.createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    switch (req.url) {
      case '/.well-known/openid-configuration':
        fetches.discovery++;
        return json(res, discovery(url, `${url}/.well-known/jwks`));
      case '/.well-known/jwks':
        fetches.jwks++;
        return json(res, options.jwksPadding ? { ...minter.jwks(), padding: 'x'.repeat(options.jwksPadding) } : minter.jwks());
      case '/http-jwks/.well-known/openid-configuration':
        return json(res, discovery(`${url}/http-jwks`, `${httpUrl}/jwks`));
      default:
        fetches.other++;
        res.writeHead(404).end();
    }
  });
  url = `https://127.0.0.1:${await listen(secure)}`;
  httpUrl = `http://127.0.0.1:${await listen(plain)}`;
  const close = (server: http.Server | https.Server): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url,
    httpJwksIssuer: `${url}/http-jwks`,
    caPath: certs.ca,
    minter,
    fetches,
    mint: (options = {}) => minter.mint(options.issuer ?? url, options),
    stop: async () => {
      await Promise.all([close(secure), close(plain)]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
