import type { Reply } from './client';

/** What the smoke checker reads from an answer: the platform that sent it, its S3 error, XML values. */

/** Which platform answered, from the headers it adds. */
export function platformOf(reply: Reply): string {
  const h = reply.headers;
  if (h['lambda-web-request-id'] !== undefined) return 'Lambda Web Function';
  if (h['x-amzn-remapped-content-length'] !== undefined || (h['x-amzn-requestid'] !== undefined && h['x-amz-request-id'] !== undefined)) return 'Lambda Function URL';
  if (h['cf-ray'] !== undefined) return 'Cloudflare';
  if (h['x-amz-cf-id'] !== undefined) return 'CloudFront';
  return 'a server or load balancer (no platform header seen)';
}

export function describe(reply: Reply): string {
  const code = errorCode(reply.body);
  const platformError = reply.headers['lambda-web-error-type'] ?? reply.headers['x-amzn-errortype'];
  return `${reply.status}${code ? ` ${code}` : ''}${platformError ? ` (${String(platformError)})` : ''}`;
}

export function errorCode(body: Buffer): string | undefined {
  return /<Code>([^<]*)<\/Code>/.exec(body.toString('utf8'))?.[1];
}

export function element(xml: string, name: string): string | undefined {
  const value = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
  return value === undefined ? undefined : unescapeXml(value);
}

export function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp|#x?[0-9A-Fa-f]+);/g, (entity, name: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };
    if (named[name] !== undefined) return named[name];
    const code = name.startsWith('#x') ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isFinite(code) ? String.fromCodePoint(code) : entity;
  });
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
