import type { Principal } from '../auth/identity';
import type { TraceContext } from './trace';

/**
 * Who made a request, as the audit trail names it: never a secret, a session token or a signature. A key is
 * named by its access key id; an STS session by its temporary access key id, role and web-identity subject.
 */
export type Caller =
  | { readonly type: 'anonymous' }
  | { readonly type: 'key'; readonly accessKeyId: string }
  | { readonly type: 'session'; readonly accessKeyId: string; readonly role: string; readonly subject: string };

const ANONYMOUS: Caller = { type: 'anonymous' };

/** The audit trail's caller for an authenticated principal. */
export function callerOf(principal: Principal): Caller {
  if (principal.type === 'anonymous') return ANONYMOUS;
  if (principal.session) return { type: 'session', accessKeyId: principal.accessKeyId, role: principal.session.roleId, subject: principal.session.subject };
  return { type: 'key', accessKeyId: principal.accessKeyId };
}

/** Why a backend exchange failed before it answered: no connection or a broken one, or no answer in time. */
export type BackendFailure = 'error' | 'timeout';

/**
 * What one request turned out to be, filled in as the core and the dispatch loop learn it, and read once at
 * its end by the access log and the metrics. One class (fields declared up front) so every record shares a
 * hidden class; unknown fields stay undefined and are left out of the log line.
 */
export class RequestRecord {
  /** The S3 operation (`GetObject`), STS action (`AssumeRoleWithWebIdentity`) or gateway endpoint (`Health`). */
  operation: string | undefined = undefined;
  /** The action the request was authorized as (`get_object`, `list_bucket`), once routed to an operation. */
  action: string | undefined = undefined;
  /** The bucket as the client named it (a virtual bucket, or one that does not exist). */
  bucket: string | undefined = undefined;
  /** Whether `bucket` is one of the configuration's virtual buckets (metrics label others `_other`). */
  knownBucket = false;
  /** The object key, or a listing's prefix, in the client's key space. */
  key: string | undefined = undefined;
  caller: Caller | undefined = undefined;
  /** The virtual bucket's backend type (`s3`, `azure`, `gcs`). */
  backendType: string | undefined = undefined;
  /** The status the backend answered a forwarded request with. */
  backendStatus: number | undefined = undefined;
  backendFailure: BackendFailure | undefined = undefined;
  /** The S3 or STS error code the client was answered with. */
  errorCode: string | undefined = undefined;
  /** The response body's length (Content-Length, or the length of a body the gateway built); undefined: unknown. */
  bytesOut: number | undefined = undefined;
  /** `performance.now()` when the response's head was handed to the runtime (time to first byte). */
  firstByteAt: number | undefined = undefined;

  constructor(
    /** `performance.now()` when the request arrived. */
    readonly startedAt: number,
    /** The trace the request is part of (the client's `traceparent`, or a new one). */
    readonly trace: TraceContext,
  ) {}
}
