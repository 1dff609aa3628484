import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { uriEncode } from '../../functions/core/bytes';
import { describe, element, errorCode, escapeXml, platformOf, unescapeXml } from './answers';
import { SmokeClient, bytesOf, generatedBody, sha256Of, type Body, type Reply, type Signer } from './client';
import { discovery, sts } from './identity-checks';
import type { CheckResult, Outcome, SmokeOptions, SmokeReport } from './types';

/**
 * What a user runs right after deploying the gateway (any shape, any host): the behaviours the platforms
 * are reported or suspected to break, each checked with raw requests so the evidence is what arrived.
 */

const MiB = 1024 * 1024;
/** A Region other than the usual default, to show the gateway verifies the client's own signing Region. */
const OTHER_REGION = 'ap-southeast-2';
/** Keys whose path bytes platforms and URL parsers are known to rewrite. */
const PATH_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['key with %', '100%.txt'],
  ['key with + and a space', 'a+b c.txt'],
  ['unicode key', 'ünïcødé-日本-😀.txt'],
];

export async function runSmoke(options: SmokeOptions): Promise<SmokeReport> {
  const client = new SmokeClient(options.endpoint, options.timeoutMs);
  const results: CheckResult[] = [];
  const written = new Set<string>();
  let platform = 'unknown';
  const seen = (reply: Reply): Reply => {
    if (platform === 'unknown') platform = platformOf(reply);
    return reply;
  };
  const run = async (check: string, body: () => Promise<[Outcome, string]>): Promise<void> => {
    try {
      const [outcome, evidence] = await body();
      results.push({ check, outcome, evidence });
    } catch (err) {
      results.push({ check, outcome: 'broken', evidence: `request failed: ${err instanceof Error ? err.message : String(err)}` });
    }
  };

  await run('discovery documents', async () => discovery(client, seen));

  const s3Checks = [
    'signed PUT and GET', 'HEAD Content-Length', 'ranged GET (206, Content-Range)', 'conditional GET 304', 'conditional GET 412',
    'gzip-encoded object round trip', 'PUT 5 MiB', 'PUT 8 MiB', 'PUT 64 MiB', 'multipart 10 MiB (2 × 5 MiB parts)',
    'multipart 64 MiB (8 × 8 MiB parts)', 'PUT with Expect: 100-continue', ...PATH_KEYS.map(([name]) => name), 'key with //',
    `signed for another Region (${OTHER_REGION})`,
  ];
  const credentials = options.credentials;
  const bucket = options.bucket;
  if (credentials === undefined || bucket === undefined) {
    const why = credentials === undefined ? 'no key given (--access-key-id, --secret-access-key)' : 'no bucket given (--bucket)';
    for (const check of s3Checks) results.push({ check, outcome: 'not checked', evidence: why });
  } else {
    const signer: Signer = { credentials, region: options.region };
    const path = (key: string): string => `/${bucket}/${uriEncode(`${options.prefix}${key}`, false)}`;
    const put = async (key: string, body: Body, headers: Record<string, string> = {}): Promise<Reply> => {
      const reply = seen(await client.send({ method: 'PUT', target: path(key), body, headers: { 'content-type': 'application/octet-stream', ...headers }, sign: signer }));
      if (reply.status === 200) written.add(key);
      return reply;
    };
    const get = async (key: string, headers: Record<string, string> = {}): Promise<Reply> => seen(await client.send({ method: 'GET', target: path(key), headers, sign: signer }));

    const small = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 256));
    let smallEtag: string | undefined;
    await run('signed PUT and GET', async () => {
      const stored = await put('small.bin', small);
      if (stored.status !== 200) return ['broken', `PUT answered ${describe(stored)}`];
      smallEtag = String(stored.headers.etag ?? '');
      const read = await get('small.bin');
      if (read.status !== 200) return ['broken', `GET answered ${describe(read)}`];
      return read.sha256 === sha256Of(small) ? ['works', `1000 B stored and read back byte for byte, ETag ${smallEtag}`] : ['broken', `read back ${read.length} B that differ from the 1000 B stored`];
    });
    const needsSmall = (check: string, body: () => Promise<[Outcome, string]>): Promise<void> =>
      smallEtag === undefined ? Promise.resolve(void results.push({ check, outcome: 'not checked', evidence: 'the signed PUT above failed' })) : run(check, body);

    await needsSmall('HEAD Content-Length', async () => {
      const head = seen(await client.send({ method: 'HEAD', target: path('small.bin'), sign: signer }));
      if (head.status !== 200) return ['broken', `HEAD answered ${describe(head)}`];
      const length = head.headers['content-length'];
      const remapped = head.headers['x-amzn-remapped-content-length'];
      if (length === '1000') return ['works', 'Content-Length: 1000'];
      if (length === undefined) {
        return ['broken', `no Content-Length${remapped ? ` (x-amzn-remapped-content-length: ${remapped})` : ''}: HeadObject reports no size, so aws s3 cp downloads and copies and boto3 download_file fail`];
      }
      return ['broken', `Content-Length: ${length} for a 1000 B object`];
    });
    await needsSmall('ranged GET (206, Content-Range)', async () => {
      const ranged = await get('small.bin', { range: 'bytes=10-19' });
      const expected = sha256Of(small.subarray(10, 20));
      if (ranged.status === 206 && ranged.headers['content-range'] === 'bytes 10-19/1000' && ranged.sha256 === expected) return ['works', '206, Content-Range: bytes 10-19/1000, the 10 bytes asked for'];
      return ['broken', `${describe(ranged)}, Content-Range: ${ranged.headers['content-range'] ?? 'none'}, ${ranged.length} B`];
    });
    await needsSmall('conditional GET 304', async () => {
      const reply = await get('small.bin', { 'if-none-match': smallEtag ?? '' });
      return reply.status === 304 && reply.length === 0 ? ['works', '304 with no body for If-None-Match: <ETag>'] : ['broken', `If-None-Match: <ETag> answered ${describe(reply)}`];
    });
    await needsSmall('conditional GET 412', async () => {
      const reply = await get('small.bin', { 'if-match': '"00000000000000000000000000000000"' });
      const code = errorCode(reply.body);
      return reply.status === 412 ? ['works', `412 ${code ?? ''} for a stale If-Match`.trim()] : ['broken', `a stale If-Match answered ${describe(reply)}`];
    });

    await run('gzip-encoded object round trip', async () => {
      const gz = gzipSync(Buffer.from('a page stored gzip-encoded\n'.repeat(200)));
      const stored = await put('page.txt.gz', gz, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      if (stored.status !== 200) return ['broken', `PUT answered ${describe(stored)}`];
      // As a browser or CDN asks; unsigned, since fronts rewrite it (Cloudflare does).
      const read = seen(await client.send({ method: 'GET', target: path('page.txt.gz'), unsignedHeaders: { 'accept-encoding': 'gzip' }, sign: signer }));
      const encoding = read.headers['content-encoding'];
      if (read.status !== 200) return ['broken', `GET answered ${describe(read)}`];
      if (read.sha256 !== sha256Of(gz)) return ['broken', `${read.length} B arrived for ${gz.length} B stored (decompressed on the way?), Content-Encoding: ${encoding ?? 'none'}`];
      if (encoding !== 'gzip') return ['broken', `bytes intact, but Content-Encoding is ${encoding === undefined ? 'missing' : `"${encoding}"`}`];
      return ['works', `${gz.length} B gzip body intact, Content-Encoding: gzip`];
    });

    const readBack = async (key: string, length: number, sha256: string): Promise<[Outcome, string]> => {
      const read = await get(key);
      if (read.status !== 200) return ['broken', `stored, but GET answered ${describe(read)}`];
      if (read.length !== length || read.sha256 !== sha256) return ['broken', `stored, but GET returned ${read.length} B that differ`];
      return ['works', `${length / MiB} MiB stored and read back byte for byte`];
    };

    for (const size of [5, 8, 64]) {
      await run(`PUT ${size} MiB`, async () => {
        const body = generatedBody(size * MiB, size);
        const stored = await put(`put-${size}mib.bin`, body);
        if (stored.status !== 200) return ['broken', `PUT answered ${describe(stored)}`];
        return readBack(`put-${size}mib.bin`, body.length, body.sha256);
      });
    }
    for (const [total, part] of [[10, 5], [64, 8]]) {
      await run(`multipart ${total} MiB (${total / part} × ${part} MiB parts)`, async () => {
        const data = await bytesOf(generatedBody(total * MiB, 100 + total));
        const key = `multipart-${total}mib.bin`;
        const outcome = await multipart(client, signer, path(key), data, part * MiB, seen);
        if (outcome !== undefined) return ['broken', outcome];
        written.add(key);
        return readBack(key, data.length, sha256Of(data));
      });
    }
    await run('PUT with Expect: 100-continue', async () => {
      const body = generatedBody(MiB, 7);
      const reply = seen(await client.send({ method: 'PUT', target: path('expect.bin'), body, headers: { 'content-type': 'application/octet-stream' }, sign: signer, expectContinue: true, continueWaitMs: 3000 }));
      if (reply.status === 200) written.add('expect.bin');
      if (reply.status === 417) return ['broken', '417 Expectation Failed: aws-cli and boto3 send Expect: 100-continue with every PutObject and UploadPart, so all their uploads fail'];
      if (reply.status !== 200) return ['broken', `answered ${describe(reply)}${reply.bodySent ? '' : ' before the body was sent'}`];
      return ['works', reply.continued ? '100 Continue, then 200' : '200, with no 100 Continue within 3 s (clients wait, then send)'];
    });

    for (const [name, key] of PATH_KEYS) {
      await run(name, async () => {
        const body = Buffer.from(`body of ${key}`);
        const stored = await put(key, body);
        if (stored.status !== 200) return ['broken', `PUT ${path(key)} answered ${describe(stored)}`];
        const read = await get(key);
        if (read.status !== 200 || read.sha256 !== sha256Of(body)) return ['broken', `GET answered ${describe(read)}`];
        const listed = seen(await client.send({ method: 'GET', target: `/${bucket}?list-type=2&prefix=${uriEncode(`${options.prefix}${key}`, true)}`, sign: signer }));
        const keys = [...listed.body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => unescapeXml(m[1]));
        if (!keys.includes(`${options.prefix}${key}`)) return ['broken', `stored and read, but the listing shows ${JSON.stringify(keys)}`];
        return ['works', `sent as …/${uriEncode(key, false)}: stored, read and listed as written`];
      });
    }
    await run('key with //', async () => {
      // The gateway refuses empty path segments (InvalidRequest): that answer proves the path arrived as sent.
      // A platform that merged the slashes would make the signature fail, or the object land elsewhere.
      const reply = seen(await client.send({ method: 'PUT', target: path('a//b.txt'), body: Buffer.from('x'), sign: signer }));
      const code = errorCode(reply.body);
      if (reply.status === 400 && code === 'InvalidRequest') return ['works', 'the path arrived with its // (the gateway answers 400 InvalidRequest, as it does for any empty segment)'];
      if (reply.status === 200) written.add('a//b.txt');
      if (code === 'SignatureDoesNotMatch') return ['broken', '403 SignatureDoesNotMatch: the platform rewrote the path the client signed'];
      return ['broken', `answered ${describe(reply)}`];
    });
    await needsSmall(`signed for another Region (${OTHER_REGION})`, async () => {
      const reply = seen(await client.send({ method: 'GET', target: path('small.bin'), sign: { credentials, region: OTHER_REGION } }));
      return reply.status === 200 ? ['works', `a GET signed for ${OTHER_REGION} is served: clients may sign for any Region`] : ['broken', `a GET signed for ${OTHER_REGION} answered ${describe(reply)}`];
    });
  }

  await run('STS round trip', async () => sts(client, options, seen));

  const leftBehind: string[] = [];
  if (credentials !== undefined && bucket !== undefined) {
    for (const key of written) {
      try {
        const reply = await client.send({ method: 'DELETE', target: `/${bucket}/${uriEncode(`${options.prefix}${key}`, false)}`, sign: { credentials, region: options.region } });
        if (reply.status !== 204 && reply.status !== 200) leftBehind.push(`${options.prefix}${key}`);
      } catch {
        leftBehind.push(`${options.prefix}${key}`);
      }
    }
  }
  client.close();
  return { endpoint: client.base, platform, results, leftBehind };
}

/** Create, upload parts, complete; undefined when every step answered 200, else what went wrong (the upload is aborted). */
async function multipart(client: SmokeClient, signer: Signer, target: string, data: Buffer, partSize: number, seen: (reply: Reply) => Reply): Promise<string | undefined> {
  const created = seen(await client.send({ method: 'POST', target: `${target}?uploads`, sign: signer }));
  const uploadId = element(created.body.toString('utf8'), 'UploadId');
  if (created.status !== 200 || uploadId === undefined) return `CreateMultipartUpload answered ${describe(created)}`;
  const id = encodeURIComponent(uploadId);
  const parts: string[] = [];
  for (let n = 1, offset = 0; offset < data.length; n++, offset += partSize) {
    const part = seen(await client.send({ method: 'PUT', target: `${target}?partNumber=${n}&uploadId=${id}`, body: data.subarray(offset, offset + partSize), sign: signer }));
    if (part.status !== 200) {
      await client.send({ method: 'DELETE', target: `${target}?uploadId=${id}`, sign: signer }).catch(() => undefined);
      return `UploadPart ${n} (${Math.min(partSize, data.length - offset) / MiB} MiB) answered ${describe(part)}`;
    }
    parts.push(`<Part><PartNumber>${n}</PartNumber><ETag>${escapeXml(String(part.headers.etag ?? ''))}</ETag></Part>`);
  }
  const body = Buffer.from(`<CompleteMultipartUpload>${parts.join('')}</CompleteMultipartUpload>`);
  const completed = seen(await client.send({ method: 'POST', target: `${target}?uploadId=${id}`, body, headers: { 'content-type': 'application/xml' }, sign: signer }));
  if (completed.status !== 200 || completed.body.includes('<Error>')) return `CompleteMultipartUpload answered ${describe(completed)}`;
  return undefined;
}

/** A prefix for one run's objects: nothing else can share it. */
export function runPrefix(): string {
  return `smoke-${new Date().toISOString().replace(/[-:]|\.\d{3}/g, '')}-${randomBytes(3).toString('hex')}/`;
}
