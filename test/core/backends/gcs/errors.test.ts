import { gcsError } from '../../../../functions/core/backends/gcs/errors';

describe('gcsError: a GCS error in S3 terms', () => {
  it('GIVEN an S3 code GCS answers with THEN that code, with the gateway\'s words where GCS, not the request, failed', () => {
    expect(gcsError(404, 'NoSuchKey')).toMatchObject({ code: 'NoSuchKey', status: 404, message: 'The specified key does not exist.' });
    expect(gcsError(403, 'SignatureDoesNotMatch')).toMatchObject({ code: 'AccessDenied', message: expect.stringMatching(/GCS backend refused the gateway's credentials/) });
  });

  it.each(['constructor', '__proto__', 'hasOwnProperty', 'InternalError'])('GIVEN the code %j, which is no S3 code to pass on THEN the S3 code for the status', (code) => {
    expect(gcsError(412, code)).toMatchObject({ code: 'PreconditionFailed', status: 412 });
    expect(gcsError(500, code)).toMatchObject({ code: 'BadGateway', status: 502 });
  });
});
