/**
 * The core's CPU for signed requests, without sockets, in one process, rounds alternating.
 *
 * - `get` (the default): `Gateway.handle` for a small GET on the bench's configuration, anonymous against
 *   signed by a long-lived key: what verifying a signature adds.
 * - `chunks`: the aws-chunked decoder over a 16 MiB STREAMING-AWS4-HMAC-SHA256-PAYLOAD body of 64 KiB
 *   chunks (minio-go's size), each chunk's SHA-256 and signature checked, with Node's hashes installed as the
 *   Node runtimes install them. Build it from two commits to compare them.
 *
 *   npx tsx bench/experiments/signed-cpu.ts [rounds] [get|chunks]
 */
import { createHash, createHmac } from 'node:crypto';
import { importHmacKey } from '../../functions/core/bytes';
import { useNativeHash } from '../../functions/core/checksums';
import { parseConfig } from '../../functions/core/config/parse';
import { Gateway } from '../../functions/core/gateway';
import type { BackendClient, ProxyRequest } from '../../functions/core/http';
import { AwsChunkedDecoder, STREAMING_SIGNED } from '../../functions/core/payload/aws-chunked';
import { checkedStream } from '../../functions/core/payload/checked-stream';
import { signRequest } from '../../functions/core/sigv4';
import { nodeHash } from '../../functions/runtime/node/checksums';
import { NodeHeaders } from '../../functions/runtime/node/headers';

const KEY = { accessKeyId: 'BENCHKEY000000000000', secretAccessKey: 'bench/secret/key/0000000000000000000000' };

function report(out: Record<string, number[]>, unit: string): void {
  for (const [k, v] of Object.entries(out)) {
    const sorted = [...v].sort((a, b) => a - b);
    console.log(`${k}: ${v.map((x) => x.toFixed(1)).join(' ')}; median ${sorted[sorted.length >> 1].toFixed(1)} ${unit}`);
  }
}

async function get(rounds: number): Promise<void> {
  const config = parseConfig(`
[[buckets]]
name = "files"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "http://127.0.0.1:9/"
bucket_name = "bench"

[[credentials]]
access_key_id = "${KEY.accessKeyId}"
secret_access_key = "${KEY.secretAccessKey}"
[[credentials.allowed_scopes]]
bucket = "*"
prefixes = []
actions = ["get_object", "head_object", "list_bucket"]
`);
  const noNetwork: BackendClient = async () => {
    throw new Error('no network here');
  };
  const gateway = new Gateway(config, { client: noNetwork, hash: nodeHash() });
  const base = { host: '127.0.0.1:8080', 'user-agent': 'bench', accept: '*/*', connection: 'keep-alive' };
  const signed = await signRequest({ method: 'GET', url: 'http://127.0.0.1:8080/files/obj-4k', headers: base, payloadHash: 'UNSIGNED-PAYLOAD', credentials: KEY, region: 'us-east-1', service: 's3', now: Date.now() });
  const rawOf = (headers: Record<string, string>): string[] => Object.entries(headers).flat();
  const request = (raw: string[]): ProxyRequest => ({
    method: 'GET',
    requestId: 'REQ',
    rawPath: '/files/obj-4k',
    rawQuery: '',
    headers: NodeHeaders.fromRaw(raw),
    body: () => new ReadableStream({ start: (c) => c.close() }),
  });
  const time = async (raw: string[], n: number): Promise<number> => {
    const t = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const d = await gateway.handle(request(raw));
      if (d.kind !== 'forward') throw new Error(`not forwarded: ${JSON.stringify(d).slice(0, 300)}`);
    }
    const u = process.cpuUsage(t);
    return (u.user + u.system) / n;
  };
  const out: Record<string, number[]> = { anonymous: [], signed: [] };
  for (let r = -1; r < rounds; r++) {
    const a = await time(rawOf(base), 20000);
    const s = await time(rawOf(signed), 20000);
    if (r < 0) continue;
    out.anonymous.push(a);
    out.signed.push(s);
  }
  report(out, 'µs of CPU per request');
}

async function chunks(rounds: number): Promise<void> {
  useNativeHash(nodeHash());
  const amzDate = '20261207T120000Z';
  const scope = '20261207/us-east-1/s3/aws4_request';
  const h = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();
  const rawKey = h(h(h(h(`AWS4${KEY.secretAccessKey}`, '20261207'), 'us-east-1'), 's3'), 'aws4_request');
  const empty = createHash('sha256').update('').digest('hex');
  const seed = 'f'.repeat(64);
  const chunk = Buffer.alloc(64 * 1024, 7);
  const total = 16 * 1024 * 1024;
  const parts: Buffer[] = [];
  let previous = seed;
  for (let left = total; ; left -= chunk.length) {
    const data = left > 0 ? chunk : Buffer.alloc(0);
    const toSign = `AWS4-HMAC-SHA256-PAYLOAD\n${amzDate}\n${scope}\n${previous}\n${empty}\n${createHash('sha256').update(data).digest('hex')}`;
    previous = createHmac('sha256', rawKey).update(toSign).digest('hex');
    parts.push(Buffer.from(`${data.length.toString(16)};chunk-signature=${previous}\r\n`), data, Buffer.from(data.length > 0 ? '\r\n' : ''));
    if (left === 0) break;
  }
  const body = Buffer.concat(parts);
  const decode = async (): Promise<number> => {
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < body.length; i += 64 * 1024) controller.enqueue(new Uint8Array(body.subarray(i, i + 64 * 1024)));
        controller.close();
      },
    });
    const decoder = new AwsChunkedDecoder({ payload: STREAMING_SIGNED, seed: { signature: seed, signingKey: importHmacKey(rawKey), scope, amzDate }, decodedLength: total, trailers: [] });
    const t = process.cpuUsage();
    const reader = checkedStream(source, decoder).getReader();
    while (!(await reader.read()).done);
    const u = process.cpuUsage(t);
    return (u.user + u.system) / 16;
  };
  const out: Record<string, number[]> = { decoded: [] };
  for (let r = -1; r < rounds; r++) {
    const cpu = await decode();
    if (r >= 0) out.decoded.push(cpu);
  }
  report(out, 'µs of CPU per MiB');
}

const rounds = Number(process.argv[2] ?? 7);
void (process.argv[3] === 'chunks' ? chunks(rounds) : get(rounds));
