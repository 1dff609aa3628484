/**
 * `npm run smoke -- <endpoint> [options]`: checks a deployed gateway (any shape, any host) for what the
 * platforms in front of it are reported to break, and prints a table: works / broken / not checked, with the
 * evidence. Exits 1 when anything is broken, 2 on a usage error, else 0.
 *
 *   --access-key-id, --secret-access-key   a gateway key (env AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)
 *   --bucket                               a bucket it may write, read, list and delete in (env SMOKE_BUCKET)
 *   --role-arn, --web-identity-token       for the STS round trip (env SMOKE_ROLE_ARN, SMOKE_WEB_IDENTITY_TOKEN)
 *   --region                               the Region requests are signed for (default us-east-1, env AWS_REGION)
 *   --prefix                               where its objects go (default smoke-<time>-<random>/; all are deleted)
 *   --timeout                              seconds per request (default 300)
 *   --json                                 the report as JSON instead of the table
 */
import { parseArgs } from 'node:util';
import { runPrefix, runSmoke } from './smoke/checks';
import type { SmokeReport } from './smoke/types';

const USAGE = 'usage: npm run smoke -- <endpoint> [--access-key-id K --secret-access-key S --bucket B] [--role-arn R --web-identity-token T] [--region R] [--prefix P] [--timeout S] [--json]';

export function table(report: SmokeReport): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    `Endpoint: ${report.endpoint} (${report.platform})`,
    '',
    '| Check | Result | Evidence |',
    '|---|---|---|',
    ...report.results.map((r) => `| ${cell(r.check)} | ${r.outcome} | ${cell(r.evidence)} |`),
  ];
  const broken = report.results.filter((r) => r.outcome === 'broken').length;
  const works = report.results.filter((r) => r.outcome === 'works').length;
  lines.push('', `Works: ${works}, broken: ${broken}, not checked: ${report.results.length - works - broken}.`);
  if (report.leftBehind.length > 0) lines.push(`Could not delete: ${report.leftBehind.join(', ')}`);
  return lines.join('\n');
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'access-key-id': { type: 'string' },
        'secret-access-key': { type: 'string' },
        bucket: { type: 'string' },
        'role-arn': { type: 'string' },
        'web-identity-token': { type: 'string' },
        region: { type: 'string' },
        prefix: { type: 'string' },
        timeout: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const endpoint = positionals[0];
  if (positionals.length !== 1 || endpoint === undefined || !/^https?:\/\/[^/]/.test(endpoint)) {
    console.error(`the endpoint (one http:// or https:// URL) is required\n${USAGE}`);
    return 2;
  }
  const accessKeyId = values['access-key-id'] ?? env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = values['secret-access-key'] ?? env.AWS_SECRET_ACCESS_KEY;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    console.error(`give both the access key id and the secret access key, or neither\n${USAGE}`);
    return 2;
  }
  const timeout = Number(values.timeout ?? 300);
  if (!(timeout > 0)) {
    console.error(`--timeout must be a number of seconds, got "${values.timeout}"\n${USAGE}`);
    return 2;
  }
  const report = await runSmoke({
    endpoint,
    credentials: accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN || undefined } : undefined,
    bucket: values.bucket ?? (env.SMOKE_BUCKET || undefined),
    prefix: values.prefix ?? runPrefix(),
    region: values.region ?? (env.AWS_REGION || 'us-east-1'),
    roleArn: values['role-arn'] ?? (env.SMOKE_ROLE_ARN || undefined),
    webIdentityToken: values['web-identity-token'] ?? (env.SMOKE_WEB_IDENTITY_TOKEN || undefined),
    timeoutMs: timeout * 1000,
  });
  console.log(values.json ? JSON.stringify(report, null, 2) : table(report));
  return report.results.some((r) => r.outcome === 'broken') ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(2);
    },
  );
}
