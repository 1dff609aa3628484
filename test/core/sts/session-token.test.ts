import { createDecipheriv, randomBytes } from 'node:crypto';
import { S3Error } from '../../../functions/core/errors';
import type { SessionCredential } from '../../../functions/core/auth/identity';
import { OPENED_SESSIONS, importSessionKey, sealSession, sessionUnsealer, unsealSession } from '../../../functions/core/sts/session-token';

const RAW_KEY = new Uint8Array(randomBytes(32));
const NOW = Date.UTC(2026, 5, 1);
const CREDENTIAL: SessionCredential = {
  accessKeyId: 'ASIAABCDEFGHIJKLMNOP',
  secretAccessKey: 'secret/secret/secret/secret/secret/12345',
  scopes: [{ bucket: 'ci', prefixes: ['acme/widgets/'], actions: ['get_object', 'put_object'] }],
  session: { roleId: 'arn:aws:iam::000000000000:role/ci', subject: 'repo:acme/widgets:ref:refs/heads/main', expiresAt: NOW + 3_600_000 },
};

async function refusal(promise: Promise<unknown>): Promise<S3Error> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof S3Error) return err;
    throw err;
  }
  throw new Error('unsealed');
}

describe('sealed session tokens', () => {
  it('round-trip the credential with its scopes and expiry', async () => {
    const key = await importSessionKey(RAW_KEY);
    const token = await sealSession(key, CREDENTIAL);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await unsealSession(key, token, NOW)).toEqual(CREDENTIAL);
  });

  it('follow the documented layout: base64url(12-byte nonce, AES-256-GCM ciphertext, 16-byte tag) of JSON', async () => {
    const token = await sealSession(await importSessionKey(RAW_KEY), CREDENTIAL);
    const bytes = Buffer.from(token, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', RAW_KEY, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from('s3-gateway sts session v1'));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    const json = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString());
    expect(json).toMatchObject({ v: 1, accessKeyId: CREDENTIAL.accessKeyId, expiresAt: CREDENTIAL.session.expiresAt, scopes: CREDENTIAL.scopes });
  });

  it('use a fresh nonce for every token', async () => {
    const key = await importSessionKey(RAW_KEY);
    expect(await sealSession(key, CREDENTIAL)).not.toBe(await sealSession(key, CREDENTIAL));
  });

  it('are InvalidToken when any byte is changed', async () => {
    const unseal = sessionUnsealer(RAW_KEY);
    const token = await sealSession(await importSessionKey(RAW_KEY), CREDENTIAL);
    const bytes = Buffer.from(token, 'base64url');
    for (const at of [0, 12, 40, bytes.length - 1]) {
      const tampered = Buffer.from(bytes);
      tampered[at] ^= 1;
      expect((await refusal(unseal(tampered.toString('base64url'), NOW))).code).toBe('InvalidToken');
    }
  });

  it('are InvalidToken under another key, when truncated, or when not base64url', async () => {
    const token = await sealSession(await importSessionKey(RAW_KEY), CREDENTIAL);
    const other = sessionUnsealer(new Uint8Array(randomBytes(32)));
    expect((await refusal(other(token, NOW))).code).toBe('InvalidToken');
    expect((await refusal(sessionUnsealer(RAW_KEY)(token.slice(0, 30), NOW))).code).toBe('InvalidToken');
    expect((await refusal(sessionUnsealer(RAW_KEY)('not/base64+url==', NOW))).code).toBe('InvalidToken');
    expect((await refusal(sessionUnsealer(RAW_KEY)('', NOW))).code).toBe('InvalidToken');
  });

  it('are ExpiredToken from their expiry on', async () => {
    const unseal = sessionUnsealer(RAW_KEY);
    const token = await sealSession(await importSessionKey(RAW_KEY), CREDENTIAL);
    await expect(unseal(token, CREDENTIAL.session.expiresAt - 1)).resolves.toBeDefined();
    const err = await refusal(unseal(token, CREDENTIAL.session.expiresAt));
    expect(err.code).toBe('ExpiredToken');
    expect(err.status).toBe(400);
    expect(err.detail).toEqual({ Expiration: new Date(CREDENTIAL.session.expiresAt).toISOString() });
  });
});

describe('an unsealer keeps the sessions it opened', () => {
  let decrypt: jest.SpyInstance;

  beforeEach(() => {
    decrypt = jest.spyOn(globalThis.crypto.subtle, 'decrypt');
  });

  afterEach(() => decrypt.mockRestore());

  it('opens a token once, however often it is presented, and answers the same credential', async () => {
    const unseal = sessionUnsealer(RAW_KEY);
    const token = await sealSession(await importSessionKey(RAW_KEY), CREDENTIAL);
    for (let i = 0; i < 5; i++) expect(await unseal(token, NOW + i)).toEqual(CREDENTIAL);
    expect(decrypt).toHaveBeenCalledTimes(1);
  });

  it('still refuses a kept session from its expiry on, and opens nothing again for it', async () => {
    const unseal = sessionUnsealer(RAW_KEY);
    const token = await sealSession(await importSessionKey(RAW_KEY), CREDENTIAL);
    await unseal(token, NOW);
    const err = await refusal(unseal(token, CREDENTIAL.session.expiresAt));
    expect(err.code).toBe('ExpiredToken');
    expect(err.detail).toEqual({ Expiration: new Date(CREDENTIAL.session.expiresAt).toISOString() });
    expect((await refusal(unseal(token, CREDENTIAL.session.expiresAt + 1))).code).toBe('ExpiredToken');
  });

  it('keeps no token that did not open: a changed byte is refused every time', async () => {
    const unseal = sessionUnsealer(RAW_KEY);
    const token = await sealSession(await importSessionKey(RAW_KEY), CREDENTIAL);
    await unseal(token, NOW);
    const bytes = Buffer.from(token, 'base64url');
    bytes[bytes.length - 1] ^= 1;
    for (let i = 0; i < 2; i++) expect((await refusal(unseal(bytes.toString('base64url'), NOW))).code).toBe('InvalidToken');
    expect(decrypt).toHaveBeenCalledTimes(3);
  });

  it(`keeps at most ${OPENED_SESSIONS}, dropping the first opened`, async () => {
    const unseal = sessionUnsealer(RAW_KEY);
    const key = await importSessionKey(RAW_KEY);
    const tokens = await Promise.all(Array.from({ length: OPENED_SESSIONS + 1 }, () => sealSession(key, CREDENTIAL)));
    for (const token of tokens) await unseal(token, NOW);
    expect(decrypt).toHaveBeenCalledTimes(OPENED_SESSIONS + 1);
    await unseal(tokens[OPENED_SESSIONS], NOW);
    await unseal(tokens[1], NOW);
    expect(decrypt).toHaveBeenCalledTimes(OPENED_SESSIONS + 1);
    await unseal(tokens[0], NOW);
    expect(decrypt).toHaveBeenCalledTimes(OPENED_SESSIONS + 2);
  });
});
