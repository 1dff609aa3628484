import { WEB_FUNCTION_HEADERS, FUNCTION_URL_HEADERS } from '../../../functions/runtime/lambda/platform-headers';

describe("Lambda fronts' request headers", () => {
  it('GIVEN a Web Function appended the client address to X-Forwarded-For THEN only the value before it may have been signed', () => {
    const xff = WEB_FUNCTION_HEADERS.rewritten.get('x-forwarded-for')!;
    expect(xff.signedValues('10.0.0.1, 192.0.2.7')).toEqual(['10.0.0.1']);
    expect(xff.signedValues('10.0.0.1,10.0.0.2,192.0.2.7')).toEqual(['10.0.0.1,10.0.0.2']);
    // The client sent none: the platform's address alone, which no client signed.
    expect(xff.signedValues('192.0.2.7')).toEqual([]);
  });

  it('declares what each front removes, for the refusal to name', () => {
    expect([...FUNCTION_URL_HEADERS.dropped]).toEqual(expect.arrayContaining(['keep-alive', 'expect', 'transfer-encoding']));
    expect([...WEB_FUNCTION_HEADERS.dropped]).toEqual(expect.arrayContaining(['keep-alive', 'expect', 'x-real-ip', 'lambda-web-request-id']));
  });
});
