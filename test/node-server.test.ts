import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NODE_SERVER_FLAGS } from '../functions/node-server';

describe('Node server entry: how it is started', () => {
  it('GIVEN `npm run serve` THEN node runs the bundle with the server\'s V8 flags', () => {
    const scripts = JSON.parse(readFileSync(resolve(__dirname, '../package.json'), 'utf8')).scripts as Record<string, string>;
    const command = scripts.serve.split('&&').pop()?.trim().split(/\s+/) ?? [];
    expect(command[0]).toBe('node');
    expect(command.at(-1)).toBe('dist/node-server.js');
    expect(command).toEqual(expect.arrayContaining([...NODE_SERVER_FLAGS]));
  });

  it('GIVEN this Node THEN it accepts the flags (a renamed V8 flag would stop the server from starting)', () => {
    expect(() => execFileSync(process.execPath, [...NODE_SERVER_FLAGS, '-e', '0'], { stdio: 'pipe' })).not.toThrow();
  });
});
