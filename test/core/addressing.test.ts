import { addressingOf, pathStylePath } from '../../functions/core/addressing';

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
