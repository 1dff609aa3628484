import { edgeEnvironment } from '../../../functions/runtime/edge/environment';

describe('edge environment', () => {
  it('GIVEN bindings THEN every string binding is an environment variable, other bindings are not', () => {
    expect(edgeEnvironment({ SESSION_TOKEN_KEY: 'k', MAX_UPLOAD_BYTES: '10', CACHE: { get: () => null }, COUNT: 3 })).toEqual({ SESSION_TOKEN_KEY: 'k', MAX_UPLOAD_BYTES: '10' });
  });
});
