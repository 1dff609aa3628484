import { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost, type PresignedPostOptions } from '@aws-sdk/s3-presigned-post';
import { parseConfig } from '../../../functions/core/config/parse';
import { Gateway } from '../../../functions/core/gateway';
import type { BackendClient, Dispatch, ProxyRequest } from '../../../functions/core/http';
import { importSessionKey, sealSession } from '../../../functions/core/sts';
import { createHmac, randomBytes } from 'node:crypto';
import { azuriteOptions, bucketToml, credentialToml, fieldsToml, s3Options } from '../../support/config-toml';

/**
 * PostObject (presigned POST) through Gateway.handle, in process: a form built by @aws-sdk/s3-presigned-post
 * becomes a Forward whose body is exactly the file, or an S3 error before anything reaches a backend.
 * What the backend keeps when a form turns out malformed mid-stream is shown against real servers in
 * test/e2e/browsers-forms.test.ts.
 */
const WRITER = { accessKeyId: 'WRITERKEY00000000000', secretAccessKey: 'writer/secret/key/000000000000000000000' };
/** May also tag what it writes (the form's `tagging` field). */
const TAGGER = { accessKeyId: 'TAGGERKEY00000000000', secretAccessKey: 'tagger/secret/key/000000000000000000000' };

const CONFIG = [
  fieldsToml({ max_upload_bytes: 4096 }),
  bucketToml({ name: 'uploads', backend_type: 's3' }, s3Options('http://backend.test:9000', 'data', { accessKeyId: 'BACKENDKEY', secretAccessKey: 'backend-secret' })),
  bucketToml({ name: 'other', backend_type: 's3' }, { endpoint: 'http://backend.test:9000', bucket_name: 'other' }),
  bucketToml({ name: 'blobs', backend_type: 'azure' }, azuriteOptions('http://azure.test:10000/devstoreaccount1', 'forms')),
  credentialToml(WRITER, {}, ['uploads', 'other', 'blobs'].map((bucket) => ({ bucket, prefixes: ['incoming/'], actions: ['put_object'] }))),
  credentialToml(TAGGER, {}, [{ bucket: 'uploads', prefixes: ['incoming/'], actions: ['put_object', 'put_object_tagging'] }]),
].join('\n');

const noNetwork: BackendClient = async () => {
  throw new Error('no network in this spec');
};
const gateway = new Gateway(parseConfig(CONFIG), { client: noNetwork });
const client = new S3Client({ region: 'us-east-1', endpoint: 'http://gateway.test', forcePathStyle: true, credentials: WRITER });
afterAll(() => client.destroy());

const BOUNDARY = '----form-boundary-7MA4YWxkTrZu0gW';

type Part = { readonly name: string; readonly value: string } | { readonly name: string; readonly filename: string; readonly content: Uint8Array };

function formBody(parts: readonly Part[], ending = `--${BOUNDARY}--\r\n`): Uint8Array {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    else {
      chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: text/plain\r\n\r\n`));
      chunks.push(Buffer.from(part.content), Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(ending));
  return new Uint8Array(Buffer.concat(chunks));
}

/** The form as a request, its body delivered in pieces of `pieceSize` bytes. */
function post(path: string, body: Uint8Array, pieceSize = 7): ProxyRequest {
  return {
    method: 'POST',
    requestId: 'REQ',
    rawPath: path,
    rawQuery: '',
    headers: new Headers({ host: 'gateway.test', 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(body.length) }),
    body: () =>
      new ReadableStream({
        start(controller) {
          for (let i = 0; i < body.length; i += pieceSize) controller.enqueue(body.slice(i, i + pieceSize));
          controller.close();
        },
      }),
  };
}

async function presigned(options: Partial<PresignedPostOptions> = {}): Promise<Part[]> {
  const { fields } = await createPresignedPost(client, { Bucket: 'uploads', Key: 'incoming/${filename}', Expires: 300, ...options });
  return Object.entries(fields).map(([name, value]) => ({ name, value }));
}

const file = (content: string, filename = 'hello.txt'): Part => ({ name: 'file', filename, content: new Uint8Array(Buffer.from(content)) });

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return Buffer.from(await new Response(stream).arrayBuffer()).toString();
}

function errorOf(dispatch: Dispatch): { status: number; code?: string; message?: string } {
  if (dispatch.kind !== 'response') throw new Error(`expected an error response, got ${dispatch.kind}`);
  const body = dispatch.response.body;
  const text = typeof body === 'string' ? body : '';
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1]?.replaceAll('&quot;', '"').replaceAll('&apos;', "'");
  return { status: dispatch.response.status, code: /<Code>([^<]*)<\/Code>/.exec(text)?.[1], message };
}

const SIGNATURE_MISMATCH = 'The request signature we calculated does not match the signature you provided. Check your key and signing method.';

describe('PostObject (presigned POST) in the core', () => {
  it('GIVEN a form from createPresignedPost WHEN posted THEN the Forward PUTs exactly the file under the key, ${filename} filled in', async () => {
    const dispatch = await gateway.handle(post('/uploads', formBody([...(await presigned()), file('hello, form')])));
    expect(dispatch.kind).toBe('forward');
    if (dispatch.kind !== 'forward') return;
    expect(dispatch.request.method).toBe('PUT');
    expect(dispatch.request.url).toBe('http://backend.test:9000/data/incoming/hello.txt');
    expect(dispatch.request.headers['content-length']).toBe('11');
    expect(await readAll(dispatch.request.body as ReadableStream<Uint8Array>)).toBe('hello, form');
    const answer = dispatch.respond(200, new Headers({ etag: '"abc"' }));
    expect(answer).toMatchObject({ status: 204, headers: { etag: '"abc"' } });
  });

  it('GIVEN success_action_status 201 and a redirect WHEN stored THEN S3 answers: the PostResponse, or a 303 with bucket, key and etag', async () => {
    const created = await gateway.handle(post('/uploads', formBody([...(await presigned({ Fields: { success_action_status: '201' } })), file('x')])));
    if (created.kind !== 'forward') throw new Error('expected a forward');
    await readAll(created.request.body as ReadableStream<Uint8Array>);
    const xml = created.respond(200, new Headers({ etag: '"e1"' }));
    expect(xml).toMatchObject({ status: 201 });
    expect(String((xml as { body: unknown }).body)).toContain('<Key>incoming/hello.txt</Key>');

    const redirected = await gateway.handle(post('/uploads', formBody([...(await presigned({ Fields: { success_action_redirect: 'http://page.test/done' } })), file('x')])));
    if (redirected.kind !== 'forward') throw new Error('expected a forward');
    expect(redirected.respond(200, new Headers({ etag: '"e1"' }))).toMatchObject({
      status: 303,
      headers: { location: 'http://page.test/done?bucket=uploads&key=incoming%2Fhello.txt&etag=%22e1%22' },
    });
  });

  it.each([
    ['a forged signature', async () => (await presigned()).map((p) => ('value' in p && p.name === 'X-Amz-Signature' ? { name: p.name, value: '0'.repeat(64) } : p)), 403, 'SignatureDoesNotMatch', SIGNATURE_MISMATCH],
    [
      'an unknown access key',
      async () => (await presigned()).map((p) => ('value' in p && p.name === 'X-Amz-Credential' ? { name: p.name, value: p.value.replace(WRITER.accessKeyId, 'AKIAUNKNOWN000000000') } : p)),
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
    ],
    ['an expired policy', () => presigned({ Expires: -10 }), 403, 'AccessDenied', 'Invalid according to Policy: Policy expired.'],
    [
      'a key outside the policy',
      async () => (await presigned({ Key: 'incoming/a.txt' })).map((p) => ('value' in p && p.name === 'key' ? { name: 'key', value: 'incoming/b.txt' } : p)),
      403,
      'AccessDenied',
      'Invalid according to Policy: Policy Condition failed: ["eq", "$key", "incoming/a.txt"]',
    ],
    [
      'a field that breaks a starts-with condition',
      () => presigned({ Conditions: [['starts-with', '$Content-Type', 'image/']], Fields: { 'Content-Type': 'text/html' } }),
      403,
      'AccessDenied',
      'Invalid according to Policy: Policy Condition failed: ["starts-with", "$Content-Type", "image/"]',
    ],
    ['a field the policy does not name', async () => [...(await presigned()), { name: 'x-amz-meta-extra', value: 'smuggled' }], 403, 'AccessDenied', 'Invalid according to Policy: Extra input fields: x-amz-meta-extra'],
    ['a starts-with escape', () => presigned({ Key: 'incoming/../x', Conditions: [['starts-with', '$key', 'incoming/']] }), 400, 'InvalidRequest', undefined],
    ['a key outside the signer\'s scopes', () => presigned({ Key: 'elsewhere/${filename}' }), 403, 'AccessDenied', undefined],
  ])('GIVEN %s WHEN posted THEN it is refused before any backend is reached', async (_, parts, status, code, message) => {
    const dispatch = await gateway.handle(post('/uploads', formBody([...(await parts()), file('x')])));
    expect(errorOf(dispatch)).toMatchObject({ status, code, ...(message === undefined ? {} : { message }) });
  });

  it.each([
    ['no key field', async () => (await presigned({ Key: '${filename}' })).filter((p) => p.name !== 'key')],
    ['a signature without its credential', async () => (await presigned()).filter((p) => p.name !== 'X-Amz-Credential')],
    ['a field named twice', async () => [...(await presigned()), { name: 'key', value: 'incoming/again.txt' }]],
  ])('GIVEN a malformed form (%s) WHEN posted THEN 400 InvalidArgument: the form, not the caller, is at fault', async (_, parts) => {
    expect(errorOf(await gateway.handle(post('/uploads', formBody([...(await parts()), file('x')]))))).toMatchObject({ status: 400, code: 'InvalidArgument' });
  });

  /** A SigV2 form's fields as boto3's `generate_presigned_post` makes them by default: the policy's base64 HMAC-SHA1. */
  const sigv2Fields = (key: string, conditions: unknown[] = [{ bucket: 'uploads' }, ['starts-with', '$key', 'incoming/']]): Record<string, string> => {
    const policy = Buffer.from(JSON.stringify({ expiration: new Date(Date.now() + 300_000).toISOString(), conditions })).toString('base64');
    const signature = createHmac('sha1', WRITER.secretAccessKey).update(policy).digest('base64');
    return { key, AWSAccessKeyId: WRITER.accessKeyId, policy, signature };
  };
  const sigv2Form = (fields: Record<string, string>): Part[] => Object.entries(fields).map(([name, value]) => ({ name, value }));

  it('GIVEN a SigV2 policy (boto3\'s default) WHEN posted THEN it is verified like a SigV4 one and the file is PUT', async () => {
    const dispatch = await gateway.handle(post('/uploads', formBody([...sigv2Form(sigv2Fields('incoming/${filename}')), file('sigv2 form')])));
    if (dispatch.kind !== 'forward') throw new Error(`expected a forward, got ${JSON.stringify(errorOf(dispatch))}`);
    expect(dispatch.request.url).toBe('http://backend.test:9000/data/incoming/hello.txt');
    expect(await readAll(dispatch.request.body as ReadableStream<Uint8Array>)).toBe('sigv2 form');
  });

  it.each([
    ['a signature over another policy', () => sigv2Form({ ...sigv2Fields('incoming/a.txt'), signature: sigv2Fields('incoming/a.txt', []).signature }), 403, 'SignatureDoesNotMatch'],
    ['no signature', () => sigv2Form(sigv2Fields('incoming/a.txt')).filter((p) => p.name !== 'signature'), 400, 'InvalidArgument'],
    ['a key outside the policy', () => sigv2Form(sigv2Fields('elsewhere/a.txt')), 403, 'AccessDenied'],
    ['an unknown access key', () => sigv2Form({ ...sigv2Fields('incoming/a.txt'), AWSAccessKeyId: 'AKIAUNKNOWN000000000' }), 403, 'InvalidAccessKeyId'],
  ])('GIVEN a SigV2 form with %s WHEN posted THEN it is refused', async (_, parts, status, code) => {
    expect(errorOf(await gateway.handle(post('/uploads', formBody([...parts(), file('x')]))))).toMatchObject({ status, code });
  });

  it('GIVEN a signed policy that is not JSON WHEN posted THEN 400 InvalidPolicyDocument: malformed, not refused', async () => {
    const policy = Buffer.from('not json').toString('base64');
    const signature = createHmac('sha1', WRITER.secretAccessKey).update(policy).digest('base64');
    const parts = sigv2Form({ key: 'incoming/a.txt', AWSAccessKeyId: WRITER.accessKeyId, policy, signature });
    expect(errorOf(await gateway.handle(post('/uploads', formBody([...parts, file('x')]))))).toMatchObject({ status: 400, code: 'InvalidPolicyDocument' });
  });

  it('GIVEN sigv2_presigned_urls = false WHEN a SigV2 form is posted THEN 400 InvalidRequest', async () => {
    const v4Only = new Gateway(parseConfig(`sigv2_presigned_urls = false\n${CONFIG}`), { client: noNetwork });
    expect(errorOf(await v4Only.handle(post('/uploads', formBody([...sigv2Form(sigv2Fields('incoming/a.txt')), file('x')]))))).toMatchObject({ status: 400, code: 'InvalidRequest' });
  });

  it('GIVEN a policy for one bucket WHEN posted to another THEN 403 AccessDenied naming the bucket condition, as S3 does', async () => {
    const dispatch = await gateway.handle(post('/other', formBody([...(await presigned()), file('x')])));
    expect(errorOf(dispatch)).toEqual({ status: 403, code: 'AccessDenied', message: 'Invalid according to Policy: Policy Condition failed: ["eq", "$bucket", "uploads"]' });
  });

  it('GIVEN a policy that allows any bucket WHEN its bucket field names another than the one posted to THEN 403 AccessDenied', async () => {
    const fields = { ...sigv2Fields('incoming/a.txt', [['starts-with', '$bucket', ''], ['starts-with', '$key', 'incoming/']]), bucket: 'uploads' };
    const dispatch = await gateway.handle(post('/other', formBody([...sigv2Form(fields), file('x')])));
    expect(errorOf(dispatch)).toMatchObject({ status: 403, code: 'AccessDenied', message: 'Invalid according to Policy: the form\'s bucket field names "uploads", not the bucket it was posted to' });
  });

  it('GIVEN content-length-range WHEN the file is larger, or above max_upload_bytes THEN EntityTooLarge; smaller THEN EntityTooSmall', async () => {
    const ranged = await presigned({ Conditions: [['content-length-range', 2, 5]] });
    expect(errorOf(await gateway.handle(post('/uploads', formBody([...ranged, file('123456')])))).code).toBe('EntityTooLarge');
    expect(errorOf(await gateway.handle(post('/uploads', formBody([...ranged, file('1')])))).code).toBe('EntityTooSmall');
    const big = await gateway.handle(post('/uploads', formBody([...(await presigned()), file('x'.repeat(5000))])));
    expect(errorOf(big).code).toBe('EntityTooLarge');
  });

  it('GIVEN a field after the file WHEN the file streams THEN the stream errors before the last byte reaches the backend', async () => {
    const body = formBody([...(await presigned()), file('0123456789'), { name: 'x-ignore-late', value: 'after the file' }]);
    const dispatch = await gateway.handle(post('/uploads', body, 4));
    if (dispatch.kind !== 'forward') throw new Error('expected a forward');
    const reader = (dispatch.request.body as ReadableStream<Uint8Array>).getReader();
    let passed = 0;
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        passed += value.length;
      }
    })().catch((err: Error & { code?: string }) => err.code);
    expect(failure).toBe('MalformedPOSTRequest');
    expect(passed).toBeLessThan(Number(dispatch.request.headers['content-length']));
  });

  it('GIVEN an Azure bucket WHEN a form is posted THEN the same streamed PUT reaches the blob, and Azure\'s 201 is S3\'s 204', async () => {
    const { fields } = await createPresignedPost(client, { Bucket: 'blobs', Key: 'incoming/${filename}', Expires: 300 });
    const parts = Object.entries(fields).map(([name, value]) => ({ name, value }));
    const dispatch = await gateway.handle(post('/blobs', formBody([...parts, file('to azure')])));
    if (dispatch.kind !== 'forward') throw new Error('expected a forward');
    expect(dispatch.request.url).toMatch(/^http:\/\/azure\.test:10000\/devstoreaccount1\/forms\/incoming\/hello\.txt/);
    expect(dispatch.request.headers['content-length']).toBe('8');
    expect(await readAll(dispatch.request.body as ReadableStream<Uint8Array>)).toBe('to azure');
    expect(dispatch.respond(201, new Headers({ etag: '"0x8D"' }))).toMatchObject({ status: 204, headers: { etag: '"0x8D"' } });
  });

  it('GIVEN temporary credentials WHEN their form is posted THEN the session token field names the signer, and its scopes decide', async () => {
    const sessionKey = randomBytes(32);
    const temporary = { accessKeyId: 'ASIATEMPORARY0000000', secretAccessKey: 'temporary/secret/0000000000000000000000' };
    const sessionToken = await sealSession(await importSessionKey(sessionKey), {
      ...temporary,
      scopes: [{ bucket: 'uploads', prefixes: ['session/'], actions: ['put_object'] }],
      session: { roleId: 'arn:aws:iam::000000000000:role/uploader', subject: 'page', expiresAt: Date.now() + 3600_000 },
    });
    const withSession = new Gateway(parseConfig(CONFIG, { SESSION_TOKEN_KEY: sessionKey.toString('base64') }), { client: noNetwork });
    const sessionClient = new S3Client({ region: 'us-east-1', endpoint: 'http://gateway.test', forcePathStyle: true, credentials: { ...temporary, sessionToken } });
    try {
      const form = async (key: string): Promise<Part[]> =>
        Object.entries((await createPresignedPost(sessionClient, { Bucket: 'uploads', Key: key, Expires: 300 })).fields).map(([name, value]) => ({ name, value }));
      const inside = await withSession.handle(post('/uploads', formBody([...(await form('session/a.txt')), file('x')])));
      expect(inside.kind).toBe('forward');
      const outside = await withSession.handle(post('/uploads', formBody([...(await form('incoming/a.txt')), file('x')])));
      expect(errorOf(outside).code).toBe('AccessDenied');
    } finally {
      sessionClient.destroy();
    }
  });

  it('GIVEN a tagging field (a Tagging document) WHEN posted by a key with put_object_tagging THEN the PUT carries it as x-amz-tagging; without the action THEN 403', async () => {
    const tagging = '<Tagging><TagSet><Tag><Key>team</Key><Value>storage</Value></Tag><Tag><Key>a b</Key><Value>x&amp;y</Value></Tag></TagSet></Tagging>';
    const form = async (keys: typeof WRITER): Promise<Part[]> => {
      const signer = new S3Client({ region: 'us-east-1', endpoint: 'http://gateway.test', forcePathStyle: true, credentials: keys });
      try {
        const { fields } = await createPresignedPost(signer, { Bucket: 'uploads', Key: 'incoming/tagged.txt', Expires: 300, Fields: { tagging }, Conditions: [{ tagging }] });
        return Object.entries(fields).map(([name, value]) => ({ name, value }));
      } finally {
        signer.destroy();
      }
    };
    const tagged = await gateway.handle(post('/uploads', formBody([...(await form(TAGGER)), file('x')])));
    expect(tagged.kind === 'forward' && tagged.request.headers['x-amz-tagging']).toBe('team=storage&a%20b=x%26y');
    expect(errorOf(await gateway.handle(post('/uploads', formBody([...(await form(WRITER)), file('x')]))))).toMatchObject({ status: 403, code: 'AccessDenied', message: expect.stringContaining('may not put_object_tagging') });
  });

  it('GIVEN no policy WHEN posted THEN the anonymous caller may not write', async () => {
    const dispatch = await gateway.handle(post('/uploads', formBody([{ name: 'key', value: 'incoming/a' }, file('x')])));
    expect(errorOf(dispatch)).toMatchObject({ status: 403, code: 'AccessDenied' });
  });

  it('GIVEN a body that is not multipart/form-data WHEN posted THEN 412 PreconditionFailed', async () => {
    const request = { ...post('/uploads', new Uint8Array(0)), headers: new Headers({ host: 'gateway.test', 'content-type': 'text/plain', 'content-length': '0' }) };
    expect(errorOf(await gateway.handle(request))).toMatchObject({ status: 412, code: 'PreconditionFailed' });
  });
});
