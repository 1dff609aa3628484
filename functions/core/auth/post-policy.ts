/**
 * A browser form upload's policy document (presigned POST): its expiry and every condition, checked against
 * the form's fields as S3 does. Conditions name fields case-insensitively (`$Content-Type`) and are exact
 * matches (`{"acl": "private"}`, `["eq", "$key", "a.txt"]`), prefixes (`["starts-with", "$key", "uploads/"]`,
 * where `""` allows any value) or the file's size (`["content-length-range", min, max]`). Every field the
 * form sends must be named by a condition, except the signature (and a SigV2 form's access key id), the
 * policy itself, the file and `x-ignore-*` fields. (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html)
 */
import { fromBase64, fromUtf8 } from '../bytes';
import { S3Error, accessDenied } from '../errors';

/** A condition; `text` is how S3 names an `eq` or `starts-with` one that failed: `["eq", "$key", "a.txt"]`. */
export type PolicyCondition =
  | { readonly kind: 'eq' | 'starts-with'; readonly field: string; readonly value: string; readonly text: string }
  | { readonly kind: 'content-length-range'; readonly min: number; readonly max: number };

export interface PostPolicy {
  /** Milliseconds since the epoch. */
  readonly expiration: number;
  readonly conditions: readonly PolicyCondition[];
}

/** The size range the policy allows the file, when it sets one. */
export interface SizeRange {
  readonly min: number;
  readonly max: number;
}

const invalidPolicy = (why: string): S3Error => new S3Error('InvalidPolicyDocument', `Invalid Policy: ${why}`);
const policyRefusal = (why: string): S3Error => accessDenied(`Invalid according to Policy: ${why}`);

/** Fields that need no condition (S3's lists for SigV4 and SigV2 forms). */
const UNCONDITIONED = new Set(['x-amz-signature', 'file', 'policy', 'awsaccesskeyid', 'signature']);

/**
 * Decodes and parses the base64 policy document.
 *
 * @throws S3Error InvalidPolicyDocument for anything but a JSON object with an ISO 8601 `expiration` and a
 *   `conditions` array of known condition shapes.
 */
export function parsePolicy(base64: string): PostPolicy {
  const bytes = fromBase64(base64.replace(/\s+/g, ''));
  if (bytes === undefined) throw invalidPolicy('the policy is not base64.');
  let doc: unknown;
  try {
    doc = JSON.parse(fromUtf8(bytes));
  } catch {
    throw invalidPolicy('Invalid JSON.');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalidPolicy('Invalid JSON.');
  const { expiration, conditions } = doc as { expiration?: unknown; conditions?: unknown };
  const expires = typeof expiration === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(expiration) ? Date.parse(expiration) : Number.NaN;
  if (Number.isNaN(expires)) throw invalidPolicy('Policy missing expiration, or it is not an ISO 8601 date.');
  if (!Array.isArray(conditions)) throw invalidPolicy('Policy missing conditions.');
  return { expiration: expires, conditions: conditions.map(readCondition) };
}

function readCondition(raw: unknown): PolicyCondition {
  const text = JSON.stringify(raw);
  if (Array.isArray(raw)) {
    const [op, a, b] = raw as unknown[];
    const kind = typeof op === 'string' ? op.toLowerCase() : '';
    if (kind === 'content-length-range' && raw.length === 3) {
      const min = Number(a);
      const max = Number(b);
      if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min < 0 || max < min) throw invalidPolicy(`Invalid content-length-range condition: ${text}`);
      return { kind, min, max };
    }
    if ((kind === 'eq' || kind === 'starts-with') && raw.length === 3 && typeof a === 'string' && a.startsWith('$') && typeof b === 'string') {
      return { kind, field: a.slice(1).toLowerCase(), value: b, text: conditionText(kind, a, b) };
    }
    throw invalidPolicy(`Invalid condition: ${text}`);
  }
  if (typeof raw === 'object' && raw !== null) {
    const entries = Object.entries(raw);
    if (entries.length === 1 && typeof entries[0][1] === 'string') {
      const [name, value] = entries[0];
      return { kind: 'eq', field: name.toLowerCase(), value, text: conditionText('eq', `$${name}`, value) };
    }
  }
  throw invalidPolicy(`Invalid condition: ${text}`);
}

/** A condition as S3 quotes it in a refusal, the field as the policy wrote it: `["starts-with", "$key", "uploads/"]`. */
function conditionText(op: string, field: string, value: string): string {
  return `[${[op, field, value].map((s) => JSON.stringify(s)).join(', ')}]`;
}

/**
 * Checks the policy against the form: not expired, every condition met, every field named by a condition.
 *
 * @param fields The form's fields by lower-case name; `bucket` is checked against `bucket`, the bucket the
 *   form was posted to.
 * @param fileLength The file's size, for `content-length-range`.
 * @throws S3Error AccessDenied ("Invalid according to Policy: …"), EntityTooLarge, EntityTooSmall.
 */
export function checkPolicy(policy: PostPolicy, fields: ReadonlyMap<string, string>, bucket: string, fileLength: number, now: number): void {
  if (now > policy.expiration) throw policyRefusal('Policy expired.');
  const valueOf = (field: string): string | undefined => (field === 'bucket' ? bucket : fields.get(field));
  const named = new Set<string>();
  for (const condition of policy.conditions) {
    if (condition.kind === 'content-length-range') {
      checkSize(condition, fileLength);
      continue;
    }
    named.add(condition.field);
    const value = valueOf(condition.field) ?? '';
    const met = condition.kind === 'eq' ? value === condition.value : value.startsWith(condition.value);
    if (!met) throw policyRefusal(`Policy Condition failed: ${condition.text}`);
  }
  const extra = [...fields.keys()].filter((f) => !UNCONDITIONED.has(f) && !f.startsWith('x-ignore-') && !named.has(f));
  if (extra.length > 0) throw policyRefusal(`Extra input fields: ${extra.join(', ')}`);
  // A policy's `bucket` condition is met by the bucket posted to (above); a field naming another is refused too.
  const sent = fields.get('bucket');
  if (sent !== undefined && sent !== bucket) throw policyRefusal(`the form's bucket field names "${sent}", not the bucket it was posted to`);
}

function checkSize(range: SizeRange, fileLength: number): void {
  if (fileLength > range.max) {
    throw new S3Error('EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', {
      ProposedSize: String(fileLength),
      MaxSizeAllowed: String(range.max),
    });
  }
  if (fileLength < range.min) {
    throw new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size', {
      ProposedSize: String(fileLength),
      MinSizeAllowed: String(range.min),
    });
  }
}
