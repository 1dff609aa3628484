/**
 * SSM GetParameter, the one SSM call a cold start makes: signed with the function's own credentials on the
 * core's SigV4 signer and sent on the gateway's backend client. @aws-sdk/client-ssm for this one call was half
 * of the handler bundle's cold module load (100 of 207 ms on the bench machine) and 210 KiB of the bundle.
 * What the SDK would add here is kept: its endpoint variables, retries of throttling and server errors, and
 * SSM's error names in the message.
 */
import { sha256HexSync, utf8 } from '../../core/bytes';
import type { Environment } from '../../core/config/parse';
import type { BackendClient } from '../../core/http';
import { signRequest, type Credentials } from '../../core/sigv4';
import { backendDocument } from '../../core/streams';

/** Where and as whom to call SSM. */
export interface SsmEndpoint {
  readonly url: string;
  readonly region: string;
  readonly credentials: Credentials;
}

/**
 * The SSM endpoint of `region` (default AWS_REGION), or the one AWS_ENDPOINT_URL_SSM or AWS_ENDPOINT_URL
 * names (as the SDKs honour them), called with the credentials Lambda puts in the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). Throws naming what is missing.
 */
export function ssmEndpoint(env: Environment, region = env.AWS_REGION): SsmEndpoint {
  if (!region) throw new Error('no AWS Region to read SSM parameters in: AWS_REGION is not set');
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('no credentials to read SSM parameters with: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set');
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  const url = env.AWS_ENDPOINT_URL_SSM || env.AWS_ENDPOINT_URL || `https://ssm.${region}.${suffix}`;
  const sessionToken = env.AWS_SESSION_TOKEN || undefined;
  return { url: url.replace(/\/*$/, '/'), region, credentials: { accessKeyId, secretAccessKey, sessionToken } };
}

/** Attempts per call, as the SDK's standard retry mode makes them. */
const ATTEMPTS = 3;
/** Per attempt: a cold start must be listening or invoked within Lambda's 10 s init. */
const ATTEMPT_TIMEOUT_MS = 3_000;
/** SSM's names for "try again later", answered with 400. */
const THROTTLING = new Set(['ThrottlingException', 'TooManyRequestsException', 'RequestLimitExceeded']);

/** An error SSM answered with: its name is SSM's error type (ParameterNotFound, AccessDeniedException, …). */
export class SsmError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = type;
  }
}

/** The parameter's value, decrypted; rejects with an SsmError (or the transport's error) after the retries. */
export async function getParameter(client: BackendClient, ssm: SsmEndpoint, name: string, pause = sleep): Promise<string> {
  const body = utf8(JSON.stringify({ Name: name, WithDecryption: true }));
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptGetParameter(client, ssm, body);
    } catch (err) {
      if (attempt >= ATTEMPTS || (err instanceof SsmError && !err.retryable)) throw err;
      await pause(100 * 2 ** attempt * Math.random());
    }
  }
}

async function attemptGetParameter(client: BackendClient, ssm: SsmEndpoint, body: Uint8Array): Promise<string> {
  const headers = await signRequest({
    method: 'POST',
    url: ssm.url,
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AmazonSSM.GetParameter' },
    payloadHash: sha256HexSync(body),
    credentials: ssm.credentials,
    region: ssm.region,
    service: 'ssm',
    now: Date.now(),
  });
  const res = await client({ method: 'POST', url: ssm.url, headers: { ...headers, 'content-length': String(body.length) }, body }, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS));
  const answer = parseAnswer(await backendDocument(res.body));
  if (res.status === 200) {
    const value = answer.Parameter?.Value;
    if (typeof value !== 'string') throw new SsmError('InvalidResponse', 'SSM answered without a parameter value', true);
    return value;
  }
  // `__type` may carry a namespace (`com.amazonaws.ssm#ParameterNotFound`); the name is after the `#`.
  const type = String(answer.__type ?? `HTTP ${res.status}`).replace(/^.*#/, '');
  const message = String(answer.message ?? answer.Message ?? '');
  throw new SsmError(type, message, res.status >= 500 || res.status === 429 || THROTTLING.has(type));
}

interface Answer {
  readonly Parameter?: { readonly Value?: unknown };
  readonly __type?: unknown;
  readonly message?: unknown;
  readonly Message?: unknown;
}

function parseAnswer(text: string): Answer {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Answer) : {};
  } catch {
    return {};
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
