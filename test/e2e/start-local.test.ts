import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';

/** `npm start` is the first thing a newcomer runs: the aws-cli commands it prints must work as printed. */
const ROOT = resolve(__dirname, '../..');

it('npm start brings up backend and gateway, and its printed aws-cli commands work', async () => {
  const { child, output } = await npmStart();
  try {
    const exports = [...output().matchAll(/^\s*export (\w+)=(\S+)$/gm)].map((m) => `export ${m[1]}=${m[2]}`);
    const commands = [...output().matchAll(/^\s*(aws --endpoint-url .*)$/gm)].map((m) => m[1]);
    expect(commands.length).toBeGreaterThanOrEqual(4);
    for (const command of commands) {
      const run = await shell([...exports, command].join('\n'));
      expect({ command, code: run.code, stderr: run.stderr }).toEqual({ command, code: 0, stderr: '' });
      if (command.includes('hello.txt')) expect(run.stdout).toContain('Hello from the S3 gateway!');
    }
  } finally {
    if (child.pid) process.kill(-child.pid, 'SIGINT');
    await new Promise((r) => child.once('exit', r));
  }
}, 120_000);

it('npm start stops, saying why, when its backend dies', async () => {
  const { child, output } = await npmStart();
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  try {
    execFileSync('pkill', ['-KILL', '-f', 's3rver.js -d .tmp/local-s3']);
    expect(await exited).toBe(1);
    expect(output()).toContain('The local backend stopped: s3rver exited on SIGKILL');
  } finally {
    if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGINT');
    await exited;
  }
}, 120_000);

it.each([
  ['the local backend', 4568, false, "The local backend's port 127.0.0.1:4568 is in use"],
  ['the gateway', 0, true, "The gateway's port 127.0.0.1:"],
])('npm start refuses to start when the port of %s is taken, saying which', async (_what, port, isGatewayPort, message) => {
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(port, '127.0.0.1', r));
  const held = String((holder.address() as AddressInfo).port);
  const { child, output } = spawnNpmStart(isGatewayPort ? held : '0');
  const closed = new Promise<number | null>((done) => child.once('close', done));
  // Should it start after all, it is stopped when the spec has failed on it.
  const stopper = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGINT'), 30_000);
  try {
    expect(await closed).toBe(1);
    expect(output()).toContain(message);
    expect(output()).not.toContain('    at ');
  } finally {
    clearTimeout(stopper);
    await new Promise((r) => holder.close(r));
  }
}, 60_000);

/** `npm start` on a free gateway port, once it has printed its commands; `output` reads all it printed. */
async function npmStart(): Promise<NpmStart> {
  const started = spawnNpmStart('0');
  for (let i = 0; i < 300 && !started.output().includes('Press Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 100));
  expect(started.output()).toContain('Press Ctrl-C');
  return started;
}

interface NpmStart {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly output: () => string;
}

/** `npm start` in a process group of its own (so SIGINT reaches the servers it starts), on the gateway port `port`. */
function spawnNpmStart(port: string): NpmStart {
  const child = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: { ...process.env, PORT: port }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let text = '';
  child.stdout.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr.on('data', (c: Buffer) => (text += c.toString()));
  return { child, output: () => text };
}

function shell(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const sh = spawn('bash', ['-c', script], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null', PYTHONWARNINGS: 'ignore' },
    });
    let stdout = '';
    let stderr = '';
    sh.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    sh.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    sh.on('exit', (code) => resolvePromise({ code, stdout, stderr }));
  });
}
