import { parseConfig } from '../../../functions/core/config/parse';
import { problemsOf } from '../../support/config-problems';

/** The configuration of CORS, virtual-hosted addressing and SigV2 links: validated like every other field. */
const BUCKET = `
[[buckets]]
name = "web"
backend_type = "s3"
[buckets.backend_options]
endpoint = "http://backend.test:9000"
`;

describe('configuration for browsers and data tools', () => {
  it('reads gateway-wide and per-bucket CORS rules, the domains and the SigV2 switch', () => {
    const config = parseConfig(`
virtual_host_domains = ["gw.example.com"]
sigv2_presigned_urls = false
sts_cors = true
[[cors_rules]]
allowed_origins = ["https://*.example.com"]
allowed_methods = ["GET", "POST"]
${BUCKET}
[[buckets.cors_rules]]
allowed_origins = ["https://app.example.com"]
allowed_methods = ["PUT"]
allowed_headers = ["Content-Type", "x-amz-*"]
expose_headers = ["ETag"]
max_age_seconds = 300
`);
    expect(config.virtualHostDomains).toEqual(['gw.example.com']);
    expect(config.sigv2PresignedUrls).toBe(false);
    expect(config.cors).toEqual({ sts: true, rules: [{ allowedOrigins: ['https://*.example.com'], allowedMethods: ['GET', 'POST'], allowedHeaders: [], exposeHeaders: [] }] });
    expect(config.buckets.get('web')?.corsRules).toEqual([
      { allowedOrigins: ['https://app.example.com'], allowedMethods: ['PUT'], allowedHeaders: ['content-type', 'x-amz-*'], exposeHeaders: ['ETag'], maxAgeSeconds: 300 },
    ]);
  });

  it('defaults: path-style only, SigV2 links accepted, no CORS', () => {
    const config = parseConfig(BUCKET);
    expect(config.virtualHostDomains).toBeUndefined();
    expect(config.sigv2PresignedUrls).toBe(true);
    expect(config.cors).toBeUndefined();
  });

  it('refuses bad rules, naming the entry and field', () => {
    const problems = problemsOf(`
${BUCKET}
[[buckets.cors_rules]]
allowed_origins = ["https://*.*.example.com"]
allowed_methods = ["PATCH"]
allowed_headers = ["a b"]
expose_headers = ["*"]
max_age_seconds = -1
origins = ["typo"]
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/cors_rules.*origins is not a known field/),
        expect.stringMatching(/allowed_origins "https:\/\/\*\.\*\.example\.com" must be an origin/),
        expect.stringMatching(/allowed_methods "PATCH" is not one of GET, PUT, POST, DELETE, HEAD/),
        expect.stringMatching(/allowed_headers "a b"/),
        expect.stringMatching(/expose_headers "\*"/),
        expect.stringMatching(/max_age_seconds must be a non-negative integer/),
      ]),
    );
  });

  it('refuses domains with a scheme, a port or a wildcard, and virtual hosting with path mapping', () => {
    expect(problemsOf(`virtual_host_domains = ["https://gw.example.com", "gw.example.com:443", "*.gw.example.com"]\n${BUCKET}`)).toHaveLength(3);
    expect(problemsOf(`virtual_host_domains = ["gw.example.com"]\n[path_mapping]\nsegments = 2\n`)).toEqual([expect.stringMatching(/cannot be combined with \[path_mapping\]/)]);
  });

  it('refuses sts_cors without gateway-wide rules and a non-boolean SigV2 switch', () => {
    expect(problemsOf(`sts_cors = true\nsigv2_presigned_urls = "no"\n${BUCKET}`)).toEqual([
      expect.stringMatching(/sts_cors needs gateway-wide \[\[cors_rules\]\]/),
      expect.stringMatching(/sigv2_presigned_urls must be true or false/),
    ]);
  });
});
