import { SignatureV4 } from '@smithy/signature-v4';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from './raw-request';

/**
 * A loopback stand-in for the SSM API (AWS JSON 1.1 protocol: POST /, `X-Amz-Target: AmazonSSM.<Op>`), with
 * the three operations the stack's code uses and SSM's own error shapes, so the real @aws-sdk/client-ssm is
 * exercised end to end. Given `keys`, it checks each call's SigV4 signature as SSM does, against the reference
 * signer (@smithy/signature-v4): InvalidSignatureException for a wrong one, UnrecognizedClientException for an
 * unknown key. Without, it checks none.
 */
export interface StoredParameter {
  readonly value: string;
  readonly type: 'String' | 'SecureString' | 'StringList';
  readonly version: number;
}

export interface FakeSsm {
  readonly endpoint: string;
  readonly parameters: Map<string, StoredParameter>;
  /** Every call received, in order: the operation and its JSON input. */
  readonly calls: { readonly operation: string; readonly input: Record<string, unknown> }[];
  /** The Region each call was signed for (its credential scope's), in the same order. */
  readonly regions: (string | undefined)[];
  /** The next `times` calls are answered with this error (a throttle, a server error), before any other check. */
  failNext(times: number, status: number, type: string): void;
  stop(): Promise<void>;
}

export interface FakeSsmOptions {
  /** Secret access keys by access key id: every call must be signed with one of them for service `ssm`. */
  readonly keys?: Readonly<Record<string, string>>;
}

type Reply = { status: number; body: Record<string, unknown> };

export async function startFakeSsm(initial: Record<string, StoredParameter> = {}, options: FakeSsmOptions = {}): Promise<FakeSsm> {
  const parameters = new Map(Object.entries(initial));
  const calls: FakeSsm['calls'] = [];
  const regions: FakeSsm['regions'] = [];
  const failures: Reply[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks);
        const operation = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSSM\./, '');
        const input = JSON.parse(raw.toString() || '{}') as Record<string, unknown>;
        calls.push({ operation, input });
        regions.push(/Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1]);
        const reply = failures.shift() ?? (options.keys && (await signatureError(req, raw, options.keys))) ?? answer(parameters, operation, input);
        const body = JSON.stringify(reply.body);
        res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.1', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    parameters,
    calls,
    regions,
    failNext: (times, status, type) => {
      for (let i = 0; i < times; i++) failures.push({ status, body: { __type: type, message: `${type} (injected)` } });
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function answer(parameters: Map<string, StoredParameter>, operation: string, input: Record<string, unknown>): Reply {
  const name = String(input.Name ?? '');
  const existing = parameters.get(name);
  switch (operation) {
    case 'GetParameter': {
      if (!existing) return error('ParameterNotFound', `Parameter ${name} not found.`);
      // Without WithDecryption a SecureString comes back encrypted, never as the plain value.
      const value = existing.type === 'SecureString' && input.WithDecryption !== true ? `AQICAH-ciphertext-of-${name}` : existing.value;
      return ok({ Parameter: { Name: name, Type: existing.type, Value: value, Version: existing.version } });
    }
    case 'PutParameter': {
      if (existing && input.Overwrite !== true) return error('ParameterAlreadyExists', 'The parameter already exists. To overwrite this value, set the overwrite option in the request to true.');
      const version = (existing?.version ?? 0) + 1;
      parameters.set(name, { value: String(input.Value), type: input.Type as StoredParameter['type'], version });
      return ok({ Version: version, Tier: 'Standard' });
    }
    case 'DeleteParameter':
      if (!existing) return error('ParameterNotFound', `Parameter ${name} not found.`);
      parameters.delete(name);
      return ok({});
    default:
      return error('InvalidAction', `${operation} is not served by the fake`);
  }
}

/** SSM's answer to a call whose signature is not a valid SigV4 one of a known key for `ssm`, else undefined. */
async function signatureError(req: http.IncomingMessage, body: Buffer, keys: Readonly<Record<string, string>>): Promise<Reply | undefined> {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/ssm\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(String(req.headers.authorization ?? ''));
  if (auth === null) return error('IncompleteSignatureException', 'The request signature is not a SigV4 signature for ssm.');
  const [, accessKeyId, , region, signedHeaders, signature] = auth;
  const secretAccessKey = keys[accessKeyId];
  if (secretAccessKey === undefined) return error('UnrecognizedClientException', 'The security token included in the request is invalid.');
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const signingDate = new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) headers[name] = String(req.headers[name] ?? '');
  const sessionToken = headers['x-amz-security-token'];
  const signer = new SignatureV4({ credentials: { accessKeyId, secretAccessKey, sessionToken }, region, service: 'ssm', sha256: Sha256 });
  const [host, port] = String(req.headers.host).split(':');
  const signed = await signer.sign({ method: req.method ?? 'POST', protocol: 'http:', hostname: host, port: Number(port), path: req.url ?? '/', query: {}, headers, body }, { signingDate });
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1];
  return expected === signature ? undefined : error('InvalidSignatureException', 'The request signature we calculated does not match the signature you provided.');
}

function ok(body: Record<string, unknown>): Reply {
  return { status: 200, body };
}

function error(type: string, message: string): Reply {
  return { status: 400, body: { __type: type, message } };
}
