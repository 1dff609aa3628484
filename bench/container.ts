import { resolve } from 'node:path';
import { buildHostNodeBase, Podman, runContainer } from '../test/support/container';

/**
 * The gateway as its container image runs it (the repository's Dockerfile, built with podman), for the bench
 * to measure beside the other shapes. It shares the machine's network, as the e2e spec runs it, to reach the
 * bench's backends on loopback. Without podman the bench goes on without it and says so: the bench is not a
 * test, and a machine without podman can still measure everything else.
 */
export interface BenchContainer {
  readonly endpoint: string;
  stop(): Promise<void>;
}

const ROOT = resolve(__dirname, '..');

/** The running container (given the bench's SESSION_TOKEN_KEY, base64), or why it is skipped. */
export async function startContainer(config: string, sessionTokenKey: string): Promise<BenchContainer | { readonly skipped: string }> {
  let podman: Podman;
  try {
    podman = Podman.require();
  } catch (err) {
    return { skipped: (err as Error).message };
  }
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const base = `localhost/s3-gateway-bench-node:${run}`;
  const image = `localhost/s3-gateway-bench:${run}`;
  const removeImages = (): Promise<unknown> => podman.run(['rmi', '--force', image, base]);
  try {
    await buildHostNodeBase(podman, base);
    await podman.ok(['build', '--format', 'docker', '--layers=false', '--build-arg', `NODE_IMAGE=${base}`, '--tag', image, ROOT]);
    const container = await runContainer(podman, { image, network: 'host', config, env: { SESSION_TOKEN_KEY: sessionTokenKey } });
    return {
      endpoint: container.endpoint,
      stop: async () => {
        await container.remove();
        await removeImages();
      },
    };
  } catch (err) {
    await removeImages();
    return { skipped: `the image did not build or start: ${(err as Error).message.slice(0, 300)}` };
  }
}
