import { setFlagsFromString } from 'node:v8';

// V8's own view of a function's code: the natives parse only with this flag, set before the functions are made.
setFlagsFromString('--allow-natives-syntax');
const prepare = new Function('f', '%PrepareFunctionForOptimization(f)') as (f: unknown) => void;
const optimizeOnNextCall = new Function('f', '%OptimizeFunctionOnNextCall(f)') as (f: unknown) => void;
const status = new Function('f', 'return %GetOptimizationStatus(f)') as (f: unknown) => number;
/** The bit of %GetOptimizationStatus that says the function runs optimized code. */
const OPTIMIZED = 1 << 4;

/**
 * Whether `f`, optimized by V8 after calls with `first`, still runs optimized code after calls with `later`.
 * Optimized code that reaches a path its first calls never took deoptimizes; when that path is common
 * (the last bytes of a chunk of odd length), it does so again and again.
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
