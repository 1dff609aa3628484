import { inBucket, type RequestContext } from '../../functions/core/context';
import type { Bucket } from '../../functions/core/config/types';
import type { ObjectStore } from '../../functions/core/backends/store';
import { keepsOneHiddenClass } from '../support/v8-natives';

const context = (i: number): RequestContext => ({ request: {}, query: {}, identity: {}, config: {}, requestId: `r${i}` }) as unknown as RequestContext;

describe('Bucket context', () => {
  it('GIVEN many requests THEN every bucket context shares one hidden class (a spread plus new properties made one per request)', () => {
    const bucket = { name: 'b' } as unknown as Bucket;
    const store = {} as unknown as ObjectStore;
    expect(keepsOneHiddenClass((i) => inBucket(context(i), bucket, store))).toBe(true);
    expect(inBucket(context(7), bucket, store)).toMatchObject({ bucket, store, requestId: 'r7' });
  });
});
