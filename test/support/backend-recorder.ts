import type { BackendClient, BackendRequest } from '../../functions/core/http';

/**
 * A stand-in for the runtime's backend client in in-process specs of Gateway.handle: it records every
 * backend request the core sends itself and answers each with a plausible document, enough for the
 * operation to finish. S3 stand-ins are at any host; Azure's at `azure.test:10000`, GCS's (JSON API) at
 * `gcs.test:4443`. Real backends are driven in test/e2e/.
 */
export function backendRecorder(seen: BackendRequest[]): BackendClient {
  return async (request) => {
    seen.push(request);
    const a = answer(request);
    return { status: a.status, headers: new Headers(a.headers ?? {}), body: a.body === undefined ? null : new Response(a.body).body };
  };
}

/** What a backend answers each kind of request with. */
function answer(request: BackendRequest): { status: number; headers?: Record<string, string>; body?: string } {
  const url = new URL(request.url);
  const q = url.searchParams;
  if (url.host === 'azure.test:10000') {
    if (q.get('comp') === 'tags') return request.method === 'GET' ? { status: 200, body: '<Tags><TagSet/></Tags>' } : { status: 204 };
    return request.method === 'HEAD'
      ? { status: 200, headers: { 'content-length': '10' } }
      : { status: 200, body: '<EnumerationResults><Blobs></Blobs><NextMarker/></EnumerationResults>' };
  }
  if (url.host === 'gcs.test:4443') {
    return q.has('prefix') ? { status: 200, body: '{"items":[]}' } : { status: 200, body: '{"name":"k","generation":"1","size":"1","md5Hash":"AAAAAAAAAAAAAAAAAAAAAA=="}' };
  }
  if (request.headers['x-amz-copy-source'] !== undefined) return { status: 200, body: '<CopyObjectResult><ETag>"e"</ETag></CopyObjectResult>' };
  if (q.has('delete')) return { status: 200, body: '<DeleteResult><Deleted><Key>k</Key></Deleted></DeleteResult>' };
  if (q.has('uploads') && request.method === 'POST') return { status: 200, body: '<InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>' };
  if (q.has('uploads')) return { status: 200, body: '<ListMultipartUploadsResult><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>' };
  // RGW's Complete answers an empty ETag: the core asks with a HEAD as well.
  if (q.has('uploadId') && request.method === 'POST') return { status: 200, body: '<CompleteMultipartUploadResult><ETag></ETag></CompleteMultipartUploadResult>' };
  if (q.has('uploadId')) return { status: 200, body: '<ListPartsResult><IsTruncated>false</IsTruncated></ListPartsResult>' };
  if (q.has('versions')) return { status: 200, body: '<ListVersionsResult><IsTruncated>false</IsTruncated></ListVersionsResult>' };
  if (q.has('versioning')) return { status: 200, body: '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>' };
  if (request.method === 'HEAD') return { status: 200, headers: { etag: '"e-2"' } };
  return { status: 200, body: '<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>' };
}
