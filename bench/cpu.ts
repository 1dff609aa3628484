import { readFileSync } from 'node:fs';
import { childrenOf } from '../test/support/gateway';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux the bench runs on). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, ms) used so far by `pid` and the processes it started: how much a server spent on
 * a scenario, read before and after it. Throughput on a shared machine says how fast a target answered;
 * this says what each answer cost it (a listing's target is at most 1.5 ms of the gateway's CPU per page).
 */
export function cpuMsOf(pid: number): number {
  let ticks = 0;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks = Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0; // the process is gone
  }
  let total = (ticks * 1000) / TICKS_PER_SECOND;
  for (const child of childrenOf(pid)) total += cpuMsOf(child);
  return total;
}
