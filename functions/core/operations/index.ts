/**
 * Runs a routed operation's handler, from its row of the operation table (operations/table.ts).
 */
import type { Access } from '../auth/authorize';
import type { BucketContext } from '../context';
import type { Dispatch } from '../http';
import type { BucketOperation } from '../routing';
import type { Handler, S3Services } from './operation';
import { OPERATIONS } from './table';

export type { S3Services } from './operation';
export { OPERATIONS } from './table';

/** Runs the operation's handler; the dispatcher has authorized it from the same row (`access`). */
export function runOperation(op: BucketOperation, ctx: BucketContext, services: S3Services, access: Access): Promise<Dispatch> {
  // The table pairs each name with its own handler; TypeScript cannot follow that through an index.
  const handler = OPERATIONS[op.name].handler as Handler<BucketOperation['name']>;
  return handler(op as never, ctx, services, access);
}
