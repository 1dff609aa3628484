import { azureError } from '../../../../functions/core/backends/azure/errors';

describe('azureError: an Azure error in S3 terms', () => {
  it('GIVEN a known Azure code THEN its S3 code and S3\'s words', () => {
    expect(azureError(404, 'BlobNotFound')).toMatchObject({ code: 'NoSuchKey', status: 404, message: 'The specified key does not exist.' });
    expect(azureError(404, 'ContainerNotFound')).toMatchObject({ code: 'NoSuchBucket', message: 'The backend container of this bucket does not exist.' });
  });

  it.each(['constructor', '__proto__', 'toString', 'SomethingNew'])('GIVEN the code %j, which is no Azure code the gateway knows THEN the S3 code for the status', (code) => {
    expect(azureError(404, code)).toMatchObject({ code: 'NoSuchKey', status: 404 });
    expect(azureError(418, code)).toMatchObject({ code: 'BadGateway', status: 502 });
  });
});
