/**
 * Child-process entry: the firebase-tools storage emulator's HTTP app without the rest of the emulator
 * suite. `StorageEmulator.start()` would first start the security-rules runtime (Java 21 and a download),
 * so this builds the same Express app with `createApp` and listens itself; the admin storage layer the
 * Cloud (JSON) API uses needs no rules. Prints `listening <port>` once ready.
 */
import type { Server } from 'node:http';

interface EmulatorArgs {
  projectId: string;
  host: string;
  port: number;
  auto_download: boolean;
}
interface StorageEmulatorInstance {
  readonly args: EmulatorArgs;
  getInfo(): { name: string; host: string; port: number };
}
interface ExpressApp {
  listen(port: number, host: string, callback: () => void): Server;
}

/* eslint-disable @typescript-eslint/no-require-imports */
const { StorageEmulator } = require('firebase-tools/lib/emulator/storage') as { StorageEmulator: new (args: EmulatorArgs) => StorageEmulatorInstance };
const { createApp } = require('firebase-tools/lib/emulator/storage/server') as { createApp: (projectId: string, emulator: StorageEmulatorInstance) => Promise<ExpressApp> };
const { EmulatorRegistry } = require('firebase-tools/lib/emulator/registry') as { EmulatorRegistry: { INSTANCES: Map<string, StorageEmulatorInstance> } };

async function main(): Promise<void> {
  const emulator = new StorageEmulator({ projectId: 'demo-gateway', host: '127.0.0.1', port: 0, auto_download: false });
  const app = await createApp('demo-gateway', emulator);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  emulator.args.port = port;
  // Object resources carry self and media links built from the registry.
  EmulatorRegistry.INSTANCES.set('storage', emulator);
  process.stdout.write(`listening ${port}\n`);
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
