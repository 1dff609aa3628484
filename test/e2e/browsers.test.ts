import type { Page } from 'playwright-core';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startBrowser, startPageServer, type Browser, type PageServer } from '../support/browser';
import { startGateway, type RunningGateway, type RuntimeName } from '../support/gateway';
import { AWS_CLIS, PYTHONS, requireGeneration } from '../support/clients';
import { DOMAIN, UPLOADER, browsersConfig, presignedPost, presignedUrl } from './browsers-fixtures';
import { RANGE_BODY, putDirect, readText, startBackends, type Backends } from './fixtures';
import { exists } from './write-fixtures';

/**
 * A real browser (headless Chromium) on a page from another origin uses the gateway as it would use S3: a
 * presigned PUT, an HTML form built from a presigned POST, a ranged read whose ETag and Content-Range the
 * page may read (exposed by the bucket's CORS rules), a readable refusal for a form over its size range, and
 * nothing at all for an origin no rule allows; and the same virtual-hosted (`web.gw.localhost`, which
 * Chromium resolves itself). On the Node server and the edge worker.
 */
const RUNTIMES_HERE: readonly RuntimeName[] = ['node', 'edge'];

let backends: Backends;
let pages: PageServer;
let browser: Browser;

beforeAll(async () => {
  [backends, pages, browser] = await Promise.all([startBackends(), startPageServer(), startBrowser()]);
  await putDirect(backends.direct.rgw, 'data', 'browsers/uploads/range.bin', RANGE_BODY, 'application/octet-stream');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await pages?.stop();
  await backends?.stop();
});

/** The HTML a page would serve: a form posting `fields` and a file input to `action`. */
function formPage(action: string, fields: Record<string, string>): string {
  const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const hidden = Object.entries(fields).map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`);
  return `<form method="post" action="${escape(action)}" enctype="multipart/form-data">${hidden.join('')}<input type="file" id="file" name="file"><button id="send">Upload</button></form>`;
}

/** A fresh tab on the page origin (or the other one). */
async function pageAt(origin: string): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(`${origin}/app`);
  return page;
}

describe.each(RUNTIMES_HERE)('a web page on another origin (%s runtime)', (runtime) => {
  let gw: RunningGateway;
  let page: Page;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: browsersConfig(backends, pages.origin) });
    page = await pageAt(pages.origin);
  }, 60_000);

  afterAll(async () => {
    await page?.close();
    await gw?.stop();
  });

  it('(a) uploads a file with a presigned PUT and reads its ETag', async () => {
    const url = await presignedUrl(gw.endpoint, UPLOADER, 'PUT', `/web/uploads/${runtime}/put.txt`);
    const result = await page.evaluate(async (target) => {
      const res = await fetch(target, { method: 'PUT', body: 'put from the page', headers: { 'content-type': 'text/plain' } });
      return { status: res.status, etag: res.headers.get('etag') };
    }, url);
    expect(result.status).toBe(200);
    expect(result.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await readText(backends.direct.rgw, 'data', `browsers/uploads/${runtime}/put.txt`)).toBe('put from the page');
  });

  it('(b) uploads through an HTML form built from a presigned POST, and lands on success_action_redirect', async () => {
    const key = `uploads/${runtime}/form-\${filename}`;
    const post = await presignedPost(gw.endpoint, UPLOADER, 'web', key, { fields: { success_action_redirect: `${pages.origin}/done` } });
    await page.setContent(formPage(`${gw.endpoint}/web`, post.fields));
    await page.setInputFiles('#file', { name: 'photo.txt', mimeType: 'text/plain', buffer: Buffer.from('sent by a form') });
    await Promise.all([page.waitForURL(/\/done\?/), page.click('#send')]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('key')).toBe(`uploads/${runtime}/form-photo.txt`);
    expect(landed.searchParams.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await readText(backends.direct.rgw, 'data', `browsers/uploads/${runtime}/form-photo.txt`)).toBe('sent by a form');
    await page.goto(`${pages.origin}/app`);
  });

  it('(c) reads a range with fetch and sees ETag and Content-Range', async () => {
    const url = await presignedUrl(gw.endpoint, UPLOADER, 'GET', '/web/uploads/range.bin');
    const result = await page.evaluate(async (target) => {
      const res = await fetch(target, { headers: { range: 'bytes=10-14' } });
      return { status: res.status, etag: res.headers.get('etag'), range: res.headers.get('content-range'), bytes: [...new Uint8Array(await res.arrayBuffer())] };
    }, url);
    expect(result).toEqual({ status: 206, etag: expect.stringMatching(/^"/), range: 'bytes 10-14/1000', bytes: [10, 11, 12, 13, 14] });
  });

  it('(d) is refused for an origin no rule allows: the page sees nothing', async () => {
    const other = await pageAt(pages.otherOrigin);
    try {
      const url = await presignedUrl(gw.endpoint, UPLOADER, 'GET', '/web/uploads/range.bin');
      const outcome = await other.evaluate(async (target) => fetch(target).then((r) => `status ${r.status}`, (e: Error) => e.name), url);
      expect(outcome).toBe('TypeError');
      const put = await presignedUrl(gw.endpoint, UPLOADER, 'PUT', `/web/uploads/${runtime}/refused.txt`);
      expect(await other.evaluate(async (target) => fetch(target, { method: 'PUT', body: 'x' }).then((r) => `status ${r.status}`, (e: Error) => e.name), put)).toBe('TypeError');
      expect(await exists(backends.direct.rgw, 'data', `browsers/uploads/${runtime}/refused.txt`)).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('(e) gets a readable refusal for a form whose file exceeds the policy\'s range, and nothing is stored', async () => {
    const key = `uploads/${runtime}/too-big.bin`;
    const post = await presignedPost(gw.endpoint, UPLOADER, 'web', key, { maxBytes: 1024 });
    const result = await page.evaluate(
      async ({ url, fields }) => {
        const form = new FormData();
        for (const [name, value] of Object.entries(fields)) form.append(name, value);
        form.append('file', new Blob([new Uint8Array(4096)]), 'too-big.bin');
        const res = await fetch(url, { method: 'POST', body: form });
        return { status: res.status, text: await res.text() };
      },
      { url: `${gw.endpoint}/web`, fields: post.fields },
    );
    expect(result.status).toBe(400);
    expect(result.text).toContain('<Code>EntityTooLarge</Code>');
    expect(result.text).toContain('<MaxSizeAllowed>1024</MaxSizeAllowed>');
    expect(await exists(backends.direct.rgw, 'data', `browsers/${key}`)).toBe(false);
  });

  it('(f) reads and writes virtual-hosted: web.gw.localhost, signed over that Host', async () => {
    const port = new URL(gw.endpoint).port;
    const base = `http://web.${DOMAIN}:${port}`;
    const put = await presignedUrl(base, UPLOADER, 'PUT', `/uploads/${runtime}/virtual.txt`);
    const get = await presignedUrl(base, UPLOADER, 'GET', `/uploads/${runtime}/virtual.txt`);
    const result = await page.evaluate(
      async ({ put, get }) => {
        const stored = await fetch(put, { method: 'PUT', body: 'virtual-hosted' });
        const read = await fetch(get, { headers: { range: 'bytes=0-6' } });
        return { put: stored.status, status: read.status, range: read.headers.get('content-range'), text: await read.text() };
      },
      { put, get },
    );
    expect(result).toEqual({ put: 200, status: 206, range: 'bytes 0-6/14', text: 'virtual' });
  });

  if (runtime === 'node') {
    it.each([
      ['boto3\'s generate_presigned_url', async (): Promise<string> => {
        const program = `
import boto3
s3 = boto3.client('s3', endpoint_url='${gw.endpoint}', region_name='us-east-1',
                  aws_access_key_id='${UPLOADER.accessKeyId}', aws_secret_access_key='${UPLOADER.secretAccessKey}')
print(s3.generate_presigned_url('get_object', Params={'Bucket': 'web', 'Key': 'uploads/sigv2.txt'}))`;
        await requireGeneration('boto3-debian');
        return (await promisify(execFile)(PYTHONS['boto3-debian'], ['-c', program])).stdout;
      }],
      ['aws-cli v1\'s s3 presign', async (): Promise<string> => {
        const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', AWS_ACCESS_KEY_ID: UPLOADER.accessKeyId, AWS_SECRET_ACCESS_KEY: UPLOADER.secretAccessKey, AWS_DEFAULT_REGION: 'us-east-1', AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' };
        await requireGeneration('v1');
        return (await promisify(execFile)(AWS_CLIS.v1, ['--endpoint-url', gw.endpoint, 's3', 'presign', 's3://web/uploads/sigv2.txt'], { env })).stdout;
      }],
    ])('(g) opens a SigV2 link made by %s with its defaults', async (_, make) => {
      await putDirect(backends.direct.rgw, 'data', 'browsers/uploads/sigv2.txt', 'opened from a SigV2 link');
      const link = (await make()).trim();
      expect(link).toContain('AWSAccessKeyId=');
      const tab = await browser.context.newPage();
      try {
        const response = await tab.goto(link);
        expect(response?.status()).toBe(200);
        expect(await tab.textContent('body')).toBe('opened from a SigV2 link');
      } finally {
        await tab.close();
      }
    });
  }
});
