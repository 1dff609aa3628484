/**
 * GetCallerIdentity follows the S3 rule for what a signature covers: every `x-amz-*` header it carries must be
 * signed (STS hashes the body itself, so `x-amz-content-sha256` is no exception there), and the credential
 * must be scoped to `sts`.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import type { SessionCredential } from '../../../functions/core/auth/identity';
import type { SignableRequest } from '../../../functions/core/sigv4';
import { callerIdentity } from '../../../functions/core/sts/caller-identity';
import { StsError } from '../../../functions/core/sts/errors';
import { NodeSha256 } from '../sigv4/smithy';

const NOW = Date.UTC(2026, 5, 1, 12);
const BODY = 'Action=GetCallerIdentity&Version=2011-06-15';
const SESSION: SessionCredential = {
  accessKeyId: 'ASIATESTSESSION00000',
  secretAccessKey: 'session/secret/000000000000000000000000',
  scopes: [],
  session: { roleId: 'arn:aws:iam::000000000000:role/ci', subject: 'repo:acme/widgets', expiresAt: NOW + 3_600_000 },
};
const unseal = async (): Promise<SessionCredential> => SESSION;

async function signed(added: Record<string, string> = {}, service = 'sts'): Promise<SignableRequest> {
  const signer = new SignatureV4({
    credentials: { accessKeyId: SESSION.accessKeyId, secretAccessKey: SESSION.secretAccessKey, sessionToken: 'sealed-token' },
    region: 'us-east-1',
    service,
    sha256: NodeSha256,
    // As the SDKs sign for STS: no x-amz-content-sha256 header.
    applyChecksum: false,
  });
  const out = await signer.sign(
    {
      method: 'POST',
      protocol: 'https:',
      hostname: 'gateway.test',
      path: '/',
      headers: { host: 'gateway.test', 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: BODY,
    },
    { signingDate: new Date(NOW) },
  );
  return { method: 'POST', rawPath: '/', rawQuery: '', headers: new Headers({ ...out.headers, ...added }) };
}

async function refusal(request: SignableRequest): Promise<StsError> {
  try {
    await callerIdentity(request, new TextEncoder().encode(BODY), unseal, NOW);
  } catch (err) {
    if (err instanceof StsError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('GetCallerIdentity and the headers its signature covers', () => {
  it('GIVEN a request as the SDK signs it THEN it answers for the session', async () => {
    const identity = await callerIdentity(await signed(), new TextEncoder().encode(BODY), unseal, NOW);
    expect(identity.arn).toBe('arn:aws:sts::000000000000:assumed-role/ci/repo:acme/widgets');
  });

  it.each([
    ['x-amz-meta-n', 'v'],
    ['x-amz-content-sha256', 'UNSIGNED-PAYLOAD'],
  ])('GIVEN an unsigned %s added THEN 403 IncompleteSignature names it', async (name, value) => {
    const err = await refusal(await signed({ [name]: value }));
    expect([err.status, err.code, err.message]).toEqual([403, 'IncompleteSignature', `There were headers present in the request which were not signed: ${name}`]);
  });

  it('GIVEN a credential scoped to s3 THEN it is refused as scoped to the wrong service', async () => {
    const err = await refusal(await signed({}, 's3'));
    expect([err.code, err.message]).toEqual(['SignatureDoesNotMatch', "Credential should be scoped to correct service: 'sts', not \"s3\""]);
  });
});
