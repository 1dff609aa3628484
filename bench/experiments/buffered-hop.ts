/**
 * What holding a listing page until it has all arrived costs, apart from any work on it: a 1,000-key
 * ListObjectsV2 page from RGW, direct and through the bare node:http hop passing each piece on (`pipe`) or
 * sending the whole answer at its end (`buffer`, node-hop-server.ts's mode), read by the JS SDK. Rounds of 40
 * pages rotate between the targets; prints each one's median latency.
 *
 *   npx tsx bench/experiments/buffered-hop.ts
 *
 * Environment: ROUNDS (6). See docs/performance-notes.md, "Sending a long page as it arrives".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createBucket, rgwS3Client, startRgw } from '../../test/support/rgw';
import { startNodeHop } from '../node-hop';

const PAGES_PER_ROUND = 40;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'buffered-hop-'));
  const rgw = await startRgw({});
  try {
    await createBucket(rgw, 'bench');
    const s3 = rgwS3Client(rgw);
    const keys = Array.from({ length: 1000 }, (_, i) => `list/k-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((Key) => s3.send(new PutObjectCommand({ Bucket: 'bench', Key, Body: 'x' }))));
    const hops = [await startNodeHop(dir, [rgw.endpoint]), await startNodeHop(dir, [rgw.endpoint], undefined, ['buffer'])];
    const targets: Array<[string, S3Client]> = [['direct', s3], ['pipe', rgwS3Client(rgw, { endpoint: hops[0].urls[0] })], ['buffer', rgwS3Client(rgw, { endpoint: hops[1].urls[0] })]];
    const page = async (client: S3Client): Promise<void> => {
      const out = await client.send(new ListObjectsV2Command({ Bucket: 'bench', Prefix: 'list/', MaxKeys: 1000 }));
      if (out.KeyCount !== 1000) throw new Error(`a page of ${out.KeyCount} keys`);
    };
    for (const [, client] of targets) for (let i = 0; i < 20; i++) await page(client);
    const latencies: number[][] = targets.map(() => []);
    for (let round = 0; round < Number(process.env.ROUNDS ?? 6); round++) {
      for (let t = 0; t < targets.length; t++) {
        const at = (t + round) % targets.length;
        for (let i = 0; i < PAGES_PER_ROUND; i++) {
          const start = performance.now();
          await page(targets[at][1]);
          latencies[at].push(performance.now() - start);
        }
      }
    }
    const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1];
    for (let t = 0; t < targets.length; t++) {
      console.log(`${targets[t][0].padEnd(8)} p50 ${median(latencies[t]).toFixed(2)} ms, ${(median(latencies[0]) / median(latencies[t])).toFixed(3)}x direct`);
    }
    for (const hop of hops) await hop.stop();
  } finally {
    await rgw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
