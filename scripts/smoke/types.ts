import type { Credentials } from '../../functions/core/sigv4';

/** What the smoke checker is given and what it reports. */

export type Outcome = 'works' | 'broken' | 'not checked';

export interface CheckResult {
  readonly check: string;
  readonly outcome: Outcome;
  readonly evidence: string;
}

export interface SmokeOptions {
  /** The gateway's endpoint, e.g. `https://abc.lambda-web.eu-west-1.on.aws`. */
  readonly endpoint: string;
  readonly credentials?: Credentials;
  /** A bucket the key may write, read, list and delete in. */
  readonly bucket?: string;
  /** Where the checker's objects go (all deleted at the end). */
  readonly prefix: string;
  /** The Region the requests are signed for. */
  readonly region: string;
  /** For the STS round trip: a role the gateway's STS trusts the token for, and the token. */
  readonly roleArn?: string;
  readonly webIdentityToken?: string;
  /** Per request. */
  readonly timeoutMs: number;
}

export interface SmokeReport {
  readonly endpoint: string;
  /** Which platform the answers' headers point to. */
  readonly platform: string;
  readonly results: readonly CheckResult[];
  /** Objects the checker wrote and could not delete. */
  readonly leftBehind: readonly string[];
}
