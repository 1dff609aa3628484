import type { PlatformHeaders } from '../../core/sigv4/platform-headers';

/**
 * What AWS Lambda's two HTTP fronts do to request headers before the gateway sees them, for the verifier
 * (core/sigv4/platform-headers.ts). Neither keeps a removed value elsewhere, so a client that signed one of
 * these cannot be verified: the refusal names the header. SDKs never sign them (`@smithy/signature-v4`'s
 * unsignable headers); a client that copies headers from an answer into a signed request (s3cmd `modify`) is
 * why the gateway sends none of them (core/backends/store.ts, runtime/node/listener.ts).
 */

/** Hop-by-hop and framing headers the Function URL consumes (the event carries the body whole). */
export const FUNCTION_URL_HEADERS: PlatformHeaders = {
  platform: 'Lambda Function URL',
  dropped: new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'proxy-connection', 'expect', 'trailer']),
  rewritten: new Map(),
};

/**
 * Removed by a Web Function endpoint (DG web-functions-http): the hop-by-hop headers, `Expect`, `X-Real-IP`,
 * the method overrides. It also appends the client's address to `X-Forwarded-For`: a signed value then
 * arrives as `<signed>, <address>`, and is verified over what precedes the last element, never over a
 * value the platform did not produce.
 */
export const WEB_FUNCTION_HEADERS: PlatformHeaders = {
  platform: 'Lambda Web Function',
  dropped: new Set([
    'connection', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer', 'transfer-encoding', 'proxy-authenticate', 'proxy-authorization',
    'proxy-connection', 'x-real-ip', 'x-http-method-override', 'x-http-method', 'x-method-override',
    // Any `lambda-web-*` a client sends is removed, and these two replaced by the platform's own. The
    // platform adds `lambda-web-request-id` to every answer, so a client that copies an answer's headers
    // into a signed request (s3cmd `modify`) cannot be verified behind a Web Function.
    'lambda-web-request-id', 'lambda-web-endpoint-name',
  ]),
  rewritten: new Map([
    [
      'x-forwarded-for',
      {
        signedValues: (arrived) => {
          const last = arrived.lastIndexOf(',');
          return last < 0 ? [] : [arrived.slice(0, last)];
        },
      },
    ],
  ]),
};
