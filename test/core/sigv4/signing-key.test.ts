import { createHmac } from 'node:crypto';
import { hmac, toHex } from '../../../functions/core/bytes';
import { signingKey } from '../../../functions/core/sigv4/signing-key';

/** The key as the SigV4 documentation derives it, through Node's own HMAC. */
function derived(secret: string, date: string, region: string, service: string): Buffer {
  const step = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();
  return step(step(step(step(`AWS4${secret}`, date), region), service), 'aws4_request');
}

const signWith = (secret: string, date: string, region: string, service: string): string => toHex(hmac(signingKey(secret, date, region, service), 'string to sign'));
const expected = (secret: string, date: string, region: string, service: string): string => createHmac('sha256', derived(secret, date, region, service)).update('string to sign').digest('hex');

describe('signingKey', () => {
  it('GIVEN scopes asked for in turn, more of them than it keeps at hand THEN each gets its own key, every time', () => {
    const scopes: Array<[string, string, string, string]> = [
      ['client/secret', '20261127', 'us-east-1', 's3'],
      ['backend/secret', '20261127', 'us-east-1', 's3'],
      ['client/secret', '20261128', 'us-east-1', 's3'],
      ['client/secret', '20261127', 'eu-west-1', 's3'],
      ['client/secret', '20261127', 'us-east-1', 'sts'],
      ['other/secret', '20261127', 'us-east-1', 's3'],
    ];
    for (let round = 0; round < 3; round++) {
      for (const scope of scopes) expect(signWith(...scope)).toBe(expected(...scope));
      for (const scope of [...scopes].reverse()) expect(signWith(...scope)).toBe(expected(...scope));
    }
  });
});
