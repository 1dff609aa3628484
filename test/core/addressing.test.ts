import { addressingOf, pathStylePath } from '../../functions/core/addressing';
import { parseConfig } from '../../functions/core/config/parse';
import { Gateway } from '../../functions/core/gateway';
import type { BackendClient, Dispatch, ProxyRequest } from '../../functions/core/http';
import { smithySigner } from './sigv4/smithy';
import { bucketToml, credentialToml, everywhere, fieldsToml } from '../support/config-toml';

/** Which bucket a Host names, with `virtual_host_domains = ["gw.example.com", "gw.localhost"]`. */
const DOMAINS = ['gw.example.com', 'gw.localhost'];

describe('virtual-hosted–style addressing', () => {
  it.each([
    ['data.gw.example.com', { style: 'virtual', bucket: 'data' }],
    ['Data.GW.Example.com:8443', { style: 'virtual', bucket: 'data' }],
    ['my.dotted.bucket.gw.localhost.', { style: 'virtual', bucket: 'my.dotted.bucket' }],
    ['gw.example.com', { style: 'path' }],
    ['gw.localhost:9000', { style: 'path' }],
    ['127.0.0.1:9000', { style: 'path' }],
    ['[::1]:9000', { style: 'path' }],
    ['abc123.lambda-url.eu-west-1.on.aws', { style: 'path' }],
    ['evilgw.example.com', { style: 'path' }],
    ['.gw.example.com', { style: 'path' }],
  ])('Host %s is %j', (host, expected) => {
    expect(addressingOf(host, DOMAINS)).toEqual(expected);
  });

  it('is path-style for every host when no domain is configured', () => {
    expect(addressingOf('data.gw.example.com', undefined)).toEqual({ style: 'path' });
  });

  it('reads a virtual-hosted path under its bucket, percent-encoding intact', () => {
    expect(pathStylePath('/a%20b/c', { style: 'virtual', bucket: 'data' })).toBe('/data/a%20b/c');
    expect(pathStylePath('/', { style: 'virtual', bucket: 'data' })).toBe('/data/');
    expect(pathStylePath('/data/k', { style: 'path' })).toBe('/data/k');
  });
});

describe('virtual-hosted requests through Gateway.handle', () => {
  const KEYS = { accessKeyId: 'ADMINKEY000000000000', secretAccessKey: 'admin/secret/key/0000000000000000000000' };
  const NOW = Date.UTC(2026, 5, 1, 12);
  const config = parseConfig([
    fieldsToml({ virtual_host_domains: ['gw.test'] }),
    bucketToml({ name: 'data', backend_type: 's3', anonymous_access: true }, { endpoint: 'http://backend.test:9000', bucket_name: 'store' }),
    credentialToml(KEYS, {}, [everywhere(['get_object', 'list_bucket'])]),
  ].join('\n'));
  const noNetwork: BackendClient = async () => {
    throw new Error('no network in this spec');
  };
  const gateway = new Gateway(config, { client: noNetwork, now: () => NOW });

  const request = (method: string, host: string, path: string, headers: Record<string, string> = {}, rawQuery = ''): ProxyRequest => ({
    method,
    requestId: 'REQ',
    rawPath: path,
    rawQuery,
    headers: new Headers({ host, ...headers }),
    body: () => new ReadableStream({ start: (c) => c.close() }),
  });
  const signed = async (method: string, host: string, path: string): Promise<ProxyRequest> => {
    const out = await smithySigner(KEYS, 'us-east-1').sign(
      { method, protocol: 'http:', hostname: host, path, query: {}, headers: { host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } },
      { signingDate: new Date(NOW) },
    );
    return request(method, host, path, out.headers as Record<string, string>);
  };
  const body = (dispatch: Dispatch): string => (dispatch.kind === 'response' ? String(dispatch.response.body) : dispatch.kind);

  it('GIVEN data.gw.test WHEN a key is read THEN the path is the key in bucket data', async () => {
    const dispatch = await gateway.handle(request('GET', 'data.gw.test', '/a%20b.txt'));
    expect(dispatch.kind === 'forward' && dispatch.request.url).toBe('http://backend.test:9000/store/a%20b.txt');
  });

  it('GIVEN data.gw.test WHEN a signed read is sent THEN it verifies over that Host and the path as sent', async () => {
    expect((await gateway.handle(await signed('GET', 'data.gw.test', '/reports/q1.csv'))).kind).toBe('forward');
    const moved = { ...(await signed('GET', 'data.gw.test', '/reports/q1.csv')), rawPath: '/data/reports/q1.csv' };
    expect(body(await gateway.handle(moved))).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('GIVEN the bare domain WHEN signed GET / THEN ListBuckets; and path-style buckets work there too', async () => {
    expect(body(await gateway.handle(await signed('GET', 'gw.test', '/')))).toContain('<ListAllMyBucketsResult');
    const dispatch = await gateway.handle(request('GET', 'gw.test', '/data/k'));
    expect(dispatch.kind === 'forward' && dispatch.request.url).toBe('http://backend.test:9000/store/k');
  });

  it('GIVEN a bucket host WHEN an STS form is posted to "/" THEN it is the bucket\'s (a form upload), not STS', async () => {
    const sts = request('POST', 'data.gw.test', '/', { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '40' });
    expect(body(await gateway.handle(sts))).toContain('<Code>PreconditionFailed</Code>');
  });

  it('GIVEN the bare domain WHEN an STS call arrives THEN STS answers it (here: unsigned, in STS\'s error shape)', async () => {
    const sts = { ...request('POST', 'gw.test', '/'), rawQuery: 'Action=GetCallerIdentity&Version=2011-06-15' };
    expect(body(await gateway.handle(sts))).toContain('<ErrorResponse');
    const onBucketHost = { ...request('POST', 'data.gw.test', '/'), rawQuery: 'Action=GetCallerIdentity&Version=2011-06-15' };
    expect(body(await gateway.handle(onBucketHost))).not.toContain('<ErrorResponse');
  });

  it('GIVEN a Host naming no bucket WHEN read THEN 404 NoSuchBucket', async () => {
    expect(body(await gateway.handle(request('GET', 'nothere.gw.test', '/k')))).toContain('<Code>NoSuchBucket</Code>');
  });
});
