import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { Environment } from '../../core/config/parse';

/**
 * Settings a deployed function receives indirectly: for each, `NAME_PARAMETER` holds the name of an SSM
 * parameter with the value. The keys are SecureStrings written by the stack's key generator (CloudFormation
 * cannot create SecureStrings, and the values must stay out of the template); the issuer is a String written
 * once the function URL exists (a function cannot take its own URL as an environment variable).
 */
export const PARAMETER_BACKED = ['OIDC_PROVIDER_KEY', 'SESSION_TOKEN_KEY', 'OIDC_PROVIDER_ISSUER'] as const;

/** Reads one parameter's (decrypted) value; rejects naming the parameter, never showing a value. */
export type ParameterReader = (name: string) => Promise<string>;

/**
 * Assembles the environment record once per cold start: a variable set directly wins over its
 * `_PARAMETER`, and every named parameter is read (in parallel) before the configuration is parsed.
 */
export async function resolveEnvironment(env: Environment, read: ParameterReader): Promise<Environment> {
  const resolved: Record<string, string | undefined> = { ...env };
  await Promise.all(
    PARAMETER_BACKED.map(async (variable) => {
      const parameter = env[`${variable}_PARAMETER`];
      if (env[variable] || !parameter) return;
      resolved[variable] = await read(parameter);
    }),
  );
  return resolved;
}

/**
 * A ParameterReader on SSM GetParameter with decryption. The client is created on first use, so a runtime
 * whose settings are all set directly (the local Function URL) never needs AWS credentials or a region.
 */
export function ssmParameterReader(createClient: () => SSMClient = () => new SSMClient({})): ParameterReader {
  let client: SSMClient | undefined;
  return async (name) => {
    client ??= createClient();
    let value: string | undefined;
    try {
      const out = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
      value = out.Parameter?.Value;
    } catch (err) {
      throw new Error(`cannot read SSM parameter ${name}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`, { cause: err });
    }
    if (!value) throw new Error(`SSM parameter ${name} is empty`);
    return value;
  };
}
