import { setFlagsFromString } from 'node:v8';

/**
 * V8's own view of hot code, for specs of what the profiles found: hidden classes and optimized code. The
 * natives (`%HaveSameMap`, `%GetOptimizationStatus`…) parse only with this flag, set before the functions
 * are made.
 */
setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const prepare = new Function('f', '%PrepareFunctionForOptimization(f)') as (f: unknown) => void;
const optimizeOnNextCall = new Function('f', '%OptimizeFunctionOnNextCall(f)') as (f: unknown) => void;
const status = new Function('f', 'return %GetOptimizationStatus(f)') as (f: unknown) => number;
/** The bit of %GetOptimizationStatus that says the function runs optimized code. */
const OPTIMIZED = 1 << 4;

/**
 * Whether the last two of `count` objects built by `make` share one hidden class. Past the first calls on
 * purpose: V8 still caches the transition there, and a class per call (an object spread followed by new
 * properties) shows only once the code is warm.
 */
export function keepsOneHiddenClass(make: (i: number) => object, count = 200): boolean {
  const objects = Array.from({ length: count }, (_, i) => make(i));
  return haveSameMap(objects[count - 2], objects[count - 1]);
}

/**
 * Whether `f`, optimized by V8 after calls with `first`, still runs optimized code after calls with `later`.
 * Optimized code that reaches a path its first calls never took deoptimizes; when that path is common
 * (the last bytes of a chunk whose end is not on a 4-byte boundary), it does so again and again.
 */
export function staysOptimized<A extends unknown[]>(f: (...args: A) => unknown, first: readonly A[], later: readonly A[]): boolean {
  prepare(f);
  for (const args of first) f(...args);
  optimizeOnNextCall(f);
  f(...first[0]);
  if ((status(f) & OPTIMIZED) === 0) throw new Error('V8 did not optimize the function: the check would prove nothing');
  for (const args of later) f(...args);
  return (status(f) & OPTIMIZED) !== 0;
}
