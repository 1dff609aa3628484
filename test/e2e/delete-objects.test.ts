import { DeleteObjectsCommand, type S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { PYTHONS, boto3, jsClient } from '../support/clients';
import { TRANSPORT_RUNTIMES } from '../support/gateway';
import { errorCode, rawRequest } from '../support/raw-request';
import { ADMIN, SCOPED, codeOf, putDirect, startBackends, type Backends } from './fixtures';
import { WRITER, exists, useWriteGateway } from './write-fixtures';

/**
 * DeleteObjects (spec rule 1): a bucket-level check, then each key on its own; refused keys are per-key
 * AccessDenied entries and never reach the backend, which is checked directly afterwards.
 */
let backends: Backends;
const rgw = (): S3Client => backends.direct.rgw;
const md5 = (body: string): string => createHash('md5').update(body).digest('base64');

beforeAll(async () => {
  backends = await startBackends();
}, 120_000);

afterAll(() => backends?.stop());

async function seed(client: S3Client, bucket: string, keys: readonly string[]): Promise<void> {
  await Promise.all(keys.map((k) => putDirect(client, bucket, k, `body of ${k}`)));
}

describe.each(TRANSPORT_RUNTIMES)('DeleteObjects (%s runtime)', (runtime) => {
  const fx = useWriteGateway(runtime, () => backends);

  const del = (client: S3Client, bucket: string, keys: readonly string[], quiet?: boolean) =>
    client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: quiet } }));

  it('deletes on both backends and reports each key', async () => {
    for (const [bucket, backendBucket, client] of [['strict', 'data', rgw()], ['private', 'private', backends.direct.s3rver]] as const) {
      // Keys of one folder: s3rver by itself raced deleting them (a 500; scripts/s3rver-fixes.cjs).
      const keys = [`batch/${runtime}/a.txt`, `batch/${runtime}/b.txt`, `batch/${runtime}/sp ace&<amp>'"ü.txt`];
      await seed(client, backendBucket, keys);
      const out = await del(fx.admin, bucket, keys);
      expect(out.Deleted?.map((d) => d.Key).sort()).toEqual([...keys].sort());
      expect(out.Errors ?? []).toEqual([]);
      for (const key of keys) expect(await exists(client, backendBucket, key)).toBe(false);
    }
  });

  it('a mix of allowed and denied keys: denied ones are AccessDenied entries and still exist', async () => {
    const allowed = [`uploads/${runtime}/1.txt`, `trash/${runtime}/2.txt`];
    const denied = [`readable/${runtime}/3.txt`, `secret/${runtime}/4.txt`];
    await seed(rgw(), 'data', [...allowed, ...denied]);
    const out = await del(fx.writer, 'strict', [...allowed, ...denied]);
    expect(out.Deleted?.map((d) => d.Key).sort()).toEqual([...allowed].sort());
    expect(out.Errors?.map((e) => [e.Key, e.Code]).sort()).toEqual(denied.map((k) => [k, 'AccessDenied']).sort());
    for (const key of allowed) expect(await exists(rgw(), 'data', key)).toBe(false);
    for (const key of denied) expect(await exists(rgw(), 'data', key)).toBe(true);
  });

  it('only denied keys: nothing is sent to the backend, every key is reported', async () => {
    const keys = [`secret/${runtime}/only-1.txt`, `secret/${runtime}/only-2.txt`];
    await seed(rgw(), 'data', keys);
    const out = await del(fx.writer, 'strict', keys);
    expect(out.Errors?.map((e) => e.Code)).toEqual(['AccessDenied', 'AccessDenied']);
    for (const key of keys) expect(await exists(rgw(), 'data', key)).toBe(true);
  });

  it('a key over 1,024 bytes is a KeyTooLongError entry, never sent on; the rest of the batch is deleted', async () => {
    const key = `too-long/${runtime}.txt`;
    const tooLong = `too-long/${'k'.repeat(1025)}`;
    await seed(backends.direct.s3rver, 'private', [key]);
    const out = await del(fx.admin, 'private', [key, tooLong]);
    expect(out.Deleted?.map((d) => d.Key)).toEqual([key]);
    expect(out.Errors?.map((e) => [e.Key, e.Code])).toEqual([[tooLong, 'KeyTooLongError']]);
    expect(await exists(backends.direct.s3rver, 'private', key)).toBe(false);
  });

  it('Quiet: only errors are reported', async () => {
    const keys = [`uploads/${runtime}/quiet.txt`, `secret/${runtime}/quiet.txt`];
    await seed(rgw(), 'data', keys);
    const out = await del(fx.writer, 'strict', keys, true);
    expect(out.Deleted ?? []).toEqual([]);
    expect(out.Errors?.map((e) => e.Key)).toEqual([`secret/${runtime}/quiet.txt`]);
    expect(await exists(rgw(), 'data', keys[0])).toBe(false);
  });

  it('maps keys under backend_prefix and back', async () => {
    await seed(rgw(), 'data', [`tenant-a/batch/${runtime}.txt`, `batch/${runtime}-outside.txt`]);
    const out = await del(fx.writer, 'tenant', [`batch/${runtime}.txt`]);
    expect(out.Deleted?.map((d) => d.Key)).toEqual([`batch/${runtime}.txt`]);
    expect(await exists(rgw(), 'data', `tenant-a/batch/${runtime}.txt`)).toBe(false);
    expect(await exists(rgw(), 'data', `batch/${runtime}-outside.txt`)).toBe(true);
  });

  it.each(Object.keys(PYTHONS) as Array<keyof typeof PYTHONS>)('%s delete_objects (Content-MD5 or CRC32, recomputed for the backend body)', async (python) => {
    const keys = [`uploads/${runtime}/${python}-1.txt`, `uploads/${runtime}/${python}-2.txt`];
    await seed(rgw(), 'data', keys);
    const out = await boto3(python, fx.gw.endpoint, WRITER, `
r = s3.delete_objects(Bucket='strict', Delete={'Objects': [{'Key': k} for k in ${JSON.stringify(keys)}]})
result = sorted(d['Key'] for d in r.get('Deleted', []))`);
    expect(out).toEqual([...keys].sort());
    for (const key of keys) expect(await exists(rgw(), 'data', key)).toBe(false);
  });

  describe('refusals', () => {
    it('a caller who may delete nothing in the bucket is AccessDenied outright', async () => {
      const scoped = jsClient(fx.gw.endpoint, SCOPED);
      expect(await codeOf(del(scoped, 'strict', ['reports/q1.csv']))).toBe('AccessDenied');
      scoped.destroy();
    });

    it('anonymous callers cannot batch-delete, even in a public bucket', async () => {
      const body = '<Delete><Object><Key>hello.txt</Key></Object></Delete>';
      const res = await rawRequest(fx.gw.endpoint, { method: 'POST', target: '/public?delete', headers: { 'content-md5': md5(body) }, body });
      expect(res.status).toBe(403);
      expect(errorCode(res.body)).toBe('AccessDenied');
    });

    it('more than 1000 keys is MalformedXML', async () => {
      const body = `<Delete>${Array.from({ length: 1001 }, (_, i) => `<Object><Key>k${i}</Key></Object>`).join('')}</Delete>`;
      const res = await rawRequest(fx.gw.endpoint, { method: 'POST', target: '/strict?delete', headers: { 'content-md5': md5(body) }, body }, ADMIN);
      expect(res.status).toBe(400);
      expect(errorCode(res.body)).toBe('MalformedXML');
    });

    it('exactly 1000 keys is accepted', async () => {
      const keys = Array.from({ length: 1000 }, (_, i) => `uploads/${runtime}/many/${i}`);
      const out = await del(fx.admin, 'strict', keys, true);
      expect(out.Errors ?? []).toEqual([]);
    });

    it.each([
      ['not XML', 'this is not xml'],
      ['no objects', '<Delete></Delete>'],
      ['an object without a key', '<Delete><Object><VersionId>1</VersionId></Object></Delete>'],
      ['a DOCTYPE with entities', '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x "y">]><Delete><Object><Key>&x;</Key></Object></Delete>'],
      ['the wrong root', '<Remove><Object><Key>a</Key></Object></Remove>'],
    ])('%s is MalformedXML', async (_, body) => {
      const res = await rawRequest(fx.gw.endpoint, { method: 'POST', target: '/strict?delete', headers: { 'content-md5': md5(body) }, body }, ADMIN);
      expect(res.status).toBe(400);
      expect(errorCode(res.body)).toBe('MalformedXML');
    });

    it('a Content-MD5 that does not match the body is BadDigest', async () => {
      const body = '<Delete><Object><Key>uploads/x</Key></Object></Delete>';
      const res = await rawRequest(fx.gw.endpoint, { method: 'POST', target: '/strict?delete', headers: { 'content-md5': md5('other') }, body }, ADMIN);
      expect(res.status).toBe(400);
      expect(errorCode(res.body)).toBe('BadDigest');
    });
  });
});
