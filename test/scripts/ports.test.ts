import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePorts } from '../../scripts/ports';

/**
 * Ports handed to servers before they start lie below the OS's ephemeral range, where no outgoing
 * connection or `listen(0)` takes them between the choice and the server's bind.
 */
it('chooses distinct free ports below the ephemeral range, each of which a server can bind', async () => {
  const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  const ports = await freePorts(20);
  expect(new Set(ports).size).toBe(20);
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(ephemeralStart);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  }
});
