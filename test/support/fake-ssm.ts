import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for the SSM API (AWS JSON 1.1 protocol: POST /, `X-Amz-Target: AmazonSSM.<Op>`), with
 * the three operations the stack's code uses and SSM's own error shapes, so the real @aws-sdk/client-ssm is
 * exercised end to end. It checks no signatures.
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
  stop(): Promise<void>;
}

type Reply = { status: number; body: Record<string, unknown> };

export async function startFakeSsm(initial: Record<string, StoredParameter> = {}): Promise<FakeSsm> {
  const parameters = new Map(Object.entries(initial));
  const calls: FakeSsm['calls'] = [];
  const regions: FakeSsm['regions'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const operation = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSSM\./, '');
      const input = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>;
      calls.push({ operation, input });
      regions.push(/Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1]);
      const reply = answer(parameters, operation, input);
      const body = JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.1', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    parameters,
    calls,
    regions,
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

function ok(body: Record<string, unknown>): Reply {
  return { status: 200, body };
}

function error(type: string, message: string): Reply {
  return { status: 400, body: { __type: type, message } };
}
