import { parseSignedRequest, signRequest, verifySignature } from '../functions/core/sigv4';

/** SigV4 verification alone: parse plus verify of a header-signed PUT, signing key cached, µs per request. */
export async function sigv4Micro(iterations: number): Promise<{ sequentialUs: number; concurrent16Us: number }> {
  const now = Date.now();
  const url = 'http://127.0.0.1:8080/bucket/some/key.txt';
  const signed = await signRequest({
    method: 'PUT',
    url,
    headers: { 'content-type': 'text/plain', 'content-length': '1024', 'x-amz-meta-a': 'b' },
    payloadHash: 'UNSIGNED-PAYLOAD',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    region: 'us-east-1',
    service: 's3',
    now,
  });
  const request = { method: 'PUT', rawPath: '/bucket/some/key.txt', rawQuery: '', headers: new Headers(signed) };
  const verify = async (): Promise<void> => {
    const info = parseSignedRequest(request.headers, request.rawQuery);
    if (!info) throw new Error('not signed');
    await verifySignature(request, info, 'secret', now);
  };
  for (let i = 0; i < 1000; i++) await verify();
  let t = performance.now();
  for (let i = 0; i < iterations; i++) await verify();
  const sequentialUs = ((performance.now() - t) * 1000) / iterations;
  t = performance.now();
  for (let i = 0; i < iterations; i += 16) await Promise.all(Array.from({ length: 16 }, verify));
  const concurrent16Us = ((performance.now() - t) * 1000) / iterations;
  return { sequentialUs, concurrent16Us };
}

if (require.main === module) {
  void sigv4Micro(20000).then((r) => console.log(JSON.stringify(r)));
}
