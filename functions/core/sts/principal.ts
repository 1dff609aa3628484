/**
 * How an assumed-role session is named in STS answers. The gateway has no AWS account, so the account is
 * the fabricated twelve zeros of the spec, and the partition is always `aws`.
 *
 * Role ids may be ARN-shaped (`arn:aws:iam::000000000000:role/ci`), because stock clients insist on that
 * form. Spliced whole into `arn:aws:sts::…:assumed-role/<role_id>/<sub>` such an id would give an ARN with
 * another ARN inside it, which no ARN parser reads back. So, as AWS itself does, an ARN-shaped role id
 * contributes its role name (the last segment after `role/`, dropping any IAM path); any other role id is
 * used as it is. The same name starts `UserId` and `AssumedRoleId` (`<name>:<sub>`).
 */
export const STS_ACCOUNT = '000000000000';

const ROLE_ARN = /^arn:[^:]+:iam::[^:]*:role\/(?:.*\/)?([^/]+)$/;

/**
 * The role's name in session ARNs.
 *
 * @example roleName('arn:aws:iam::000000000000:role/ci') // 'ci'
 * @example roleName('ci-role') // 'ci-role'
 */
export function roleName(roleId: string): string {
  return ROLE_ARN.exec(roleId)?.[1] ?? roleId;
}

/** `arn:aws:sts::000000000000:assumed-role/<role name>/<sub>`. */
export function assumedRoleArn(roleId: string, subject: string): string {
  return `arn:aws:sts::${STS_ACCOUNT}:assumed-role/${roleName(roleId)}/${subject}`;
}

/** `<role name>:<sub>`: GetCallerIdentity's `UserId` and AssumeRoleWithWebIdentity's `AssumedRoleId`. */
export function assumedRoleId(roleId: string, subject: string): string {
  return `${roleName(roleId)}:${subject}`;
}
