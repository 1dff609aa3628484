import { passThroughHeaders } from '../../../functions/core/backends/store';

describe('passThroughHeaders', () => {
  const backend = new Headers({
    'content-type': 'application/octet-stream',
    'content-encoding': 'gzip',
    etag: '"abc"',
    'cache-control': 'max-age=60',
    connection: 'keep-alive, x-backend-hop',
    'keep-alive': 'timeout=5',
    'x-backend-hop': '1',
    'transfer-encoding': 'chunked',
    'proxy-connection': 'keep-alive',
    'proxy-authenticate': 'Basic',
    te: 'trailers',
    trailer: 'x-checksum',
    upgrade: 'h2c',
    'x-rgw-object-type': 'Normal',
    'x-rgw-bytes-used': '10',
    'x-amz-id-2': 'f1c9-default-default',
    'x-amz-request-id': 'tx000-backend',
    'x-amz-version-id': 'v1',
    'x-amz-meta-a': 'b',
  });

  it('passes what describes the object, and never the connection or the backend itself', () => {
    expect(passThroughHeaders(backend, 'gw-request')).toEqual({
      'content-type': 'application/octet-stream',
      'content-encoding': 'gzip',
      etag: '"abc"',
      'cache-control': 'max-age=60',
      'x-amz-version-id': 'v1',
      'x-amz-meta-a': 'b',
      'x-amz-request-id': 'gw-request',
    });
  });
});
