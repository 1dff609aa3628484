/**
 * `npm start`: a real local S3 backend (s3rver on 127.0.0.1:4568, data in .tmp/local-s3) seeded with a
 * public bucket holding hello.txt and a private bucket, plus the gateway on HOST:PORT (default
 * 127.0.0.1:8080) with the demo key from local/proxy.toml. Ctrl-C stops both.
 */
import { mkdirSync } from 'node:fs';
import { signRequest } from '../functions/core/sigv4';
import { nodeBackend } from '../functions/runtime/node/backend';
import { serve } from '../functions/node-server';
import { processEnvironment, readListenSettings } from '../functions/runtime/shared/settings';
import { isFree } from './ports';
import { startS3rver, type S3rver } from './s3rver';
import { Readable } from 'node:stream';

const BACKEND_PORT = 4568;
const ACCESS_KEY = 'DEMOACCESSKEYID00000';
const SECRET_KEY = 'demo/secret/access/key/for/local/use/only';

async function seed(backend: S3rver): Promise<void> {
  const body = Buffer.from('Hello from the S3 gateway!\n');
  const url = `${backend.endpoint}/public/hello.txt`;
  const headers = await signRequest({
    method: 'PUT',
    url,
    headers: { 'content-type': 'text/plain', 'content-length': String(body.length) },
    payloadHash: 'UNSIGNED-PAYLOAD',
    credentials: { accessKeyId: backend.accessKeyId, secretAccessKey: backend.secretAccessKey },
    region: 'us-east-1',
    service: 's3',
    now: Date.now(),
  });
  const res = await nodeBackend().send({ method: 'PUT', url, headers, body }, () => Readable.from([]));
  res.resume();
  if (res.statusCode !== 200) throw new Error(`seeding hello.txt failed with ${res.statusCode}`);
}

/**
 * Refuses with what to do when `port` is taken, most often by an `npm start` still running, before anything
 * starts: either server would otherwise fail half-way with a stack trace.
 */
async function ensureFree(host: string, port: number, whose: string, remedy: string): Promise<void> {
  if (port !== 0 && !(await isFree(port, host))) throw new Error(`${whose} port ${host}:${port} is in use (by another npm start?): ${remedy}`);
}

async function main(): Promise<void> {
  const { host, port } = readListenSettings(processEnvironment());
  await ensureFree('127.0.0.1', BACKEND_PORT, "The local backend's", 'stop what holds it (local/proxy.toml names this port).');
  await ensureFree(host, port, "The gateway's", 'stop what holds it, or set PORT to another port.');
  mkdirSync('.tmp/local-s3', { recursive: true });
  const backend = await startS3rver({ directory: '.tmp/local-s3', port: BACKEND_PORT, buckets: ['public', 'private'] });
  await seed(backend);
  const gateway = await serve({ ...process.env, CONFIG_PATH: process.env.CONFIG_PATH || 'local/proxy.toml' });
  const endpoint = gateway.url;
  console.log(`
S3 gateway running at ${endpoint} (backend: s3rver at ${backend.endpoint}, data in .tmp/local-s3)

Try it with the demo key:
  export AWS_ACCESS_KEY_ID=${ACCESS_KEY}
  export AWS_SECRET_ACCESS_KEY=${SECRET_KEY}
  export AWS_DEFAULT_REGION=us-east-1
  aws --endpoint-url ${endpoint} s3 ls
  aws --endpoint-url ${endpoint} s3 ls s3://public/
  aws --endpoint-url ${endpoint} s3 cp s3://public/hello.txt -
  aws --endpoint-url ${endpoint} s3 ls s3://private/

Anonymous reads of the public bucket:
  aws --endpoint-url ${endpoint} --no-sign-request s3 cp s3://public/hello.txt -
  curl ${endpoint}/public/hello.txt

Press Ctrl-C to stop.
`);
  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await gateway.close();
    await backend.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  // Without its backend the gateway would answer every request 503: stop, and say why.
  void backend.died.then((why) => {
    console.error(`\nThe local backend stopped: ${why}\nThe gateway stops with it; run npm start again.`);
    return stop(1);
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
