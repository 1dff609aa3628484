import { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost, type PresignedPost } from '@aws-sdk/s3-presigned-post';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent } from 'node:http';
import type { Keys } from '../support/clients';
import { bucketToml, corsRuleToml, credentialToml, fieldsToml, s3Options } from '../support/config-toml';
import { S3RVER_KEYS } from '../support/large-bodies';
import { smithySigner } from '../core/sigv4/smithy';
import { ADMIN_CREDENTIALS, type Backends } from './fixtures';

/**
 * What the browser and data-tool suites share: the domain virtual-hosted buckets live under, the buckets
 * (RGW `data` under `browsers/`, with CORS rules for the page's origin), a key that may write only under
 * `uploads/`, and the clients' ways of reaching `{bucket}.gw.localhost`.
 */

/** Chromium and curl resolve `*.localhost` to loopback themselves; Node and Python are told to in each test. */
export const DOMAIN = 'gw.localhost';

/** May read and write under `uploads/` in `web` (and read `public-data/`), nothing else. */
export const UPLOADER: Keys = { accessKeyId: 'UPLOADERKEY000000000', secretAccessKey: 'uploader/secret/key/00000000000000000000' };

export function browsersConfig(b: Backends, pageOrigin: string): string {
  return [
    fieldsToml({ virtual_host_domains: [DOMAIN] }),
    bucketToml({ name: 'web', backend_type: 's3' }, s3Options(b.rgw.endpoint, 'data', b.rgw, { backend_prefix: 'browsers/' })),
    corsRuleToml({
      allowed_origins: [pageOrigin],
      allowed_methods: ['GET', 'HEAD', 'PUT', 'POST'],
      allowed_headers: ['content-type', 'range', 'x-amz-*'],
      expose_headers: ['ETag', 'Content-Range', 'x-amz-version-id'],
      max_age_seconds: 60,
    }),
    bucketToml({ name: 'blobs', backend_type: 'objstore' }, s3Options(b.s3rver.endpoint, 'private', S3RVER_KEYS)),
    ADMIN_CREDENTIALS,
    credentialToml(UPLOADER, { principal_name: 'uploader' }, [
      { bucket: 'web', prefixes: ['uploads/'], actions: ['get_object', 'head_object', 'put_object', 'list_bucket'] },
      { bucket: 'web', prefixes: ['public-data/'], actions: ['get_object', 'head_object', 'list_bucket'] },
      { bucket: 'blobs', prefixes: ['uploads/'], actions: ['put_object', 'get_object'] },
    ]),
  ].join('\n');
}

/**
 * A presigned URL made by the SDK's own signer (`@smithy/signature-v4`) as @aws-sdk/s3-request-presigner
 * drives it (payload `UNSIGNED-PAYLOAD`), for `path` on `endpoint` (path-style, or a bucket's own host).
 */
export async function presignedUrl(endpoint: string, keys: Keys, method: string, path: string, expiresIn = 300): Promise<string> {
  const url = new URL(endpoint);
  const signed = await smithySigner(keys, 'us-east-1').presign(
    { method, protocol: url.protocol, hostname: url.hostname, port: Number(url.port), path, query: {}, headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } },
    { expiresIn },
  );
  const query = Object.entries(signed.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return `${url.protocol}//${url.host}${path}?${query}`;
}

/** A presigned POST for `key` in `bucket`, made by @aws-sdk/s3-presigned-post as a page's backend would (`expires`: seconds, 300). */
export async function presignedPost(
  endpoint: string,
  keys: Keys,
  bucket: string,
  key: string,
  options: { maxBytes?: number; fields?: Record<string, string>; expires?: number } = {},
): Promise<PresignedPost> {
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: keys });
  try {
    return await createPresignedPost(client, {
      Bucket: bucket,
      Key: key,
      Expires: options.expires ?? 300,
      Fields: options.fields,
      Conditions: [['content-length-range', 1, options.maxBytes ?? 1024 * 1024], ...Object.entries(options.fields ?? {}).map(([k, v]) => ({ [k]: v }))],
    });
  } finally {
    client.destroy();
  }
}

/** Node resolves `*.localhost` through the system resolver, which does not know it: loopback, for the tests. */
export function localhostLookup(hostname: string, options: object, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    if ((options as { all?: boolean }).all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
    return;
  }
  dnsLookup(hostname, options, callback as never);
}

/** A JS SDK v3 client as its users make it: virtual-hosted by default (no forcePathStyle), `*.localhost` on loopback. */
export function virtualHostedClient(port: number, keys: Keys): S3Client {
  return new S3Client({
    endpoint: `http://${DOMAIN}:${port}`,
    region: 'us-east-1',
    credentials: keys,
    maxAttempts: 1,
    requestHandler: { httpAgent: new Agent({ lookup: localhostLookup as never }) },
  });
}
