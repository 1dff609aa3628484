import { sampleOf, statusClass } from '../../../functions/core/observability/metrics';
import { RequestRecord, callerOf } from '../../../functions/core/observability/record';
import { traceContext } from '../../../functions/core/observability/trace';

function record(fill: Partial<RequestRecord> = {}): RequestRecord {
  return Object.assign(new RequestRecord(1000, traceContext(new Headers())), fill);
}

describe('sampleOf', () => {
  it('labels a configured bucket by name, any other by _other, and requests outside buckets _none', () => {
    expect(sampleOf(record({ bucket: 'data', knownBucket: true }), 200, 0, 0, 1010).bucket).toBe('data');
    expect(sampleOf(record({ bucket: 'whatever-a-client-sends' }), 404, 0, 0, 1010).bucket).toBe('_other');
    expect(sampleOf(record(), 200, 0, 0, 1010).bucket).toBe('_none');
  });

  it('names a request refused before routing Unknown, and times it in seconds', () => {
    expect(sampleOf(record({ firstByteAt: 1004 }), 403, 10, 0, 1250)).toMatchObject({ operation: 'Unknown', statusClass: '4xx', seconds: 0.25, firstByteSeconds: 0.004, bytesIn: 10 });
  });

  it('counts a backend 5xx and a backend that failed to answer as backend failures of its type', () => {
    expect(sampleOf(record({ backendType: 'azure', backendStatus: 503 }), 503, 0, 0, 1001).backendFailure).toEqual({ backendType: 'azure', kind: '5xx' });
    expect(sampleOf(record({ backendType: 's3', backendFailure: 'timeout' }), 504, 0, 0, 1001).backendFailure).toEqual({ backendType: 's3', kind: 'timeout' });
    expect(sampleOf(record({ backendType: 's3', backendStatus: 404 }), 404, 0, 0, 1001).backendFailure).toBeUndefined();
  });

  it('gives STS calls an outcome: Success or their error code', () => {
    expect(sampleOf(record({ operation: 'AssumeRoleWithWebIdentity' }), 200, 0, 0, 1001).stsOutcome).toBe('Success');
    expect(sampleOf(record({ operation: 'GetCallerIdentity', errorCode: 'ExpiredToken' }), 400, 0, 0, 1001).stsOutcome).toBe('ExpiredToken');
    expect(sampleOf(record({ operation: 'GetObject', errorCode: 'NoSuchKey' }), 404, 0, 0, 1001).stsOutcome).toBeUndefined();
  });
});

describe('statusClass', () => {
  it.each([
    [200, '2xx'],
    [304, '3xx'],
    [404, '4xx'],
    [503, '5xx'],
    [0, 'other'],
  ])('%d is %s', (status, label) => expect(statusClass(status)).toBe(label));
});

describe('callerOf', () => {
  it('names a key by its id, a session by its id, role and subject, and never carries a secret', () => {
    expect(callerOf({ type: 'anonymous' })).toEqual({ type: 'anonymous' });
    expect(callerOf({ type: 'key', accessKeyId: 'AKID', name: 'admin', scopes: [] })).toEqual({ type: 'key', accessKeyId: 'AKID' });
    const session = { roleId: 'arn:aws:iam::1:role/ci', subject: 'repo:a/b', expiresAt: 0 };
    expect(callerOf({ type: 'key', accessKeyId: 'ASIA1', name: 'x', scopes: [], session })).toEqual({ type: 'session', accessKeyId: 'ASIA1', role: 'arn:aws:iam::1:role/ci', subject: 'repo:a/b' });
  });
});
