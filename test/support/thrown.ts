import { S3Error } from '../../functions/core/errors';

/** What `fn` throws, when it is a `type`; fails the spec when `fn` returns, and rethrows anything else. */
export function thrownBy<E>(type: new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error('accepted');
}

/** The S3 error code `fn` throws, undefined when it returns, 'not an S3Error' for any other throw. */
export function s3CodeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof S3Error ? err.code : 'not an S3Error';
  }
}
