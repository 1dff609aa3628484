import { setFlagsFromString } from 'node:v8';
import { inBucket, type RequestContext } from '../../../functions/core/operations/context';
import type { Bucket } from '../../../functions/core/config/types';
import type { ObjectStore } from '../../../functions/core/backends/store';

// V8's own check of hidden classes; `%HaveSameMap` parses only with this flag, set before the function is made.
setFlagsFromString('--allow-natives-syntax');
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const context = (i: number): RequestContext => ({ request: {}, query: {}, identity: {}, config: {}, requestId: `r${i}` }) as unknown as RequestContext;

describe('Bucket context', () => {
  it('GIVEN many requests THEN every bucket context shares one hidden class (a spread plus new properties made one per request)', () => {
    const bucket = { name: 'b' } as unknown as Bucket;
    const store = {} as unknown as ObjectStore;
    // Past the first calls, where V8 still caches the transition: the per-call class showed only once warm.
    const contexts = Array.from({ length: 200 }, (_, i) => inBucket(context(i), bucket, store));
    expect(sameHiddenClass(contexts[198], contexts[199])).toBe(true);
    expect(contexts[199]).toMatchObject({ bucket, store, requestId: 'r199' });
  });
});
