import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * Starts a server the bench measures in a session of its own, as the gateways run (`startGateway`) and as
 * services on a host run in cgroups of their own. Linux's autogroup scheduler shares CPU between sessions,
 * not processes: with nginx and the load generator in the bench's session and the gateway in its own, the
 * same gateway moved 14% less on 1 MiB GETs than beside them, and 10% more once nginx had its own session
 * too (A/B, 9-11 rounds). The load generator, the client, stays in the bench's session.
 */
export function spawnServer(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  // Outside the bench's session no terminal signal reaches it: stop it when the bench exits, however.
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  return child;
}
