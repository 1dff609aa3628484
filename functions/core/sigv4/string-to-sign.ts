/** The string to sign and the credential scope it names. */

/** The only algorithm S3 accepts for SigV4 with a secret key (SigV4a uses ECDSA and is not served). */
export const ALGORITHM = 'AWS4-HMAC-SHA256';

/** Last element of every credential scope. */
export const SCOPE_TERMINATOR = 'aws4_request';

/**
 * `YYYYMMDD/region/service/aws4_request`.
 *
 * @example credentialScope('20130524', 'us-east-1', 's3') // '20130524/us-east-1/s3/aws4_request'
 */
export function credentialScope(date: string, region: string, service: string): string {
  return `${date}/${region}/${service}/${SCOPE_TERMINATOR}`;
}

/**
 * The string to sign: algorithm, request time, scope and the hex SHA-256 of the canonical request. Google's
 * V4 signed URLs use the same shape with their own algorithm name.
 *
 * @example stringToSign('20130524T000000Z', '20130524/us-east-1/s3/aws4_request', '7344ae5b…')
 */
export function stringToSign(amzDate: string, scope: string, canonicalRequestHash: string, algorithm: string = ALGORITHM): string {
  return `${algorithm}\n${amzDate}\n${scope}\n${canonicalRequestHash}`;
}
