import { accessDenied, invalidRequest, notImplemented, S3Error, S3_ERROR_STATUS } from '../../functions/core/errors';

describe('S3Error', () => {
  it('takes its status from its code', () => {
    for (const [code, status] of Object.entries(S3_ERROR_STATUS)) {
      expect(new S3Error(code as keyof typeof S3_ERROR_STATUS, 'm').status).toBe(status);
    }
  });

  it('is an Error named S3Error that carries its code, message and detail', () => {
    const err = new S3Error('NoSuchKey', 'gone', { Key: 'k' });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('S3Error');
    expect(err).toMatchObject({ code: 'NoSuchKey', message: 'gone', status: 404, detail: { Key: 'k' } });
  });

  it('has no detail unless given one', () => {
    expect(new S3Error('InternalError', 'x').detail).toEqual({});
  });
});

describe('error helpers', () => {
  it('accessDenied is a 403 AccessDenied, "Access Denied" unless told otherwise', () => {
    expect(accessDenied()).toMatchObject({ code: 'AccessDenied', status: 403, message: 'Access Denied' });
    expect(accessDenied('out of scope')).toMatchObject({ message: 'out of scope' });
  });

  it('notImplemented is a 501 NotImplemented that names what is not implemented', () => {
    expect(notImplemented('UploadPartCopy')).toMatchObject({
      code: 'NotImplemented',
      status: 501,
      message: 'UploadPartCopy is not implemented by this gateway',
    });
  });

  it('invalidRequest is a 400 InvalidRequest', () => {
    expect(invalidRequest('bad key')).toMatchObject({ code: 'InvalidRequest', status: 400, message: 'bad key' });
  });
});
