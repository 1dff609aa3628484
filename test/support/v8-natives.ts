import { setFlagsFromString } from 'node:v8';

/**
 * V8's own view of hot code, for specs of what the profiles found: hidden classes. The natives
 * (`%HaveSameMap`) parse only with this flag, set before the functions are made.
 */
setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/**
 * Whether the last two of `count` objects built by `make` share one hidden class. Past the first calls on
 * purpose: V8 still caches the transition there, and a class per call (an object spread followed by new
 * properties) shows only once the code is warm.
 */
export function keepsOneHiddenClass(make: (i: number) => object, count = 200): boolean {
  const objects = Array.from({ length: count }, (_, i) => make(i));
  return haveSameMap(objects[count - 2], objects[count - 1]);
}
