import type { Environment } from '../../core/config/parse';
import type { BackendClient } from '../../core/http';
import type { LambdaSettings } from '../shared/settings';
import { getParameter, type SsmEndpoint } from './ssm';

/** Reads one parameter's (decrypted) value; rejects naming the parameter, never showing a value. */
export type ParameterReader = (name: string) => Promise<string>;

/**
 * Assembles the environment record once per cold start. Settings a deployed function receives indirectly
 * come from SSM: for each, `NAME_PARAMETER` holds the name of a parameter with the value (`parameters`, as
 * the settings reader validated them). The keys are SecureStrings written by the stack's key generator
 * (CloudFormation cannot create SecureStrings, and the values must stay out of the template); the issuer is
 * a String written once the function URL exists (a function cannot take its own URL as an environment
 * variable). A variable set directly wins over its parameter, and every named parameter is read (in
 * parallel) before the configuration is parsed.
 */
export async function resolveEnvironment(env: Environment, parameters: LambdaSettings['parameters'], read: ParameterReader): Promise<Environment> {
  const resolved: Record<string, string | undefined> = { ...env };
  await Promise.all(
    Object.entries(parameters).map(async ([variable, parameter]) => {
      if (env[variable] || !parameter) return;
      resolved[variable] = await read(parameter);
    }),
  );
  return resolved;
}

/**
 * A ParameterReader on SSM GetParameter with decryption, sent on `client`. The endpoint is worked out on first
 * use, so a runtime whose settings are all set directly (the local Function URL) never needs AWS credentials
 * or a Region.
 */
export function ssmParameterReader(client: BackendClient, endpoint: () => SsmEndpoint): ParameterReader {
  let ssm: SsmEndpoint | undefined;
  return async (name) => {
    let value: string;
    try {
      ssm ??= endpoint();
      value = await getParameter(client, ssm, name);
    } catch (err) {
      throw new Error(`cannot read SSM parameter ${name}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`, { cause: err });
    }
    if (!value) throw new Error(`SSM parameter ${name} is empty`);
    return value;
  };
}
