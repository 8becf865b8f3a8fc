import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { exitOf } from './lifecycle-support.js';

let node: ClusterNode | undefined;
afterEach(async () => {
  await node?.kill('SIGKILL');
  node = undefined;
});

/**
 * A module preloaded into the server (`--import`) that throws from a SIGUSR2 handler: an error in a
 * callback that is not one of the server's guarded handlers, like a bug in a library's timer.
 */
function throwingPreload(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'collab-fatal-')), 'throw-on-usr2.mjs');
  writeFileSync(
    file,
    "process.on('SIGUSR2', () => { throw new Error('thrown by a callback outside the server'); });\n",
  );
  return file;
}

describe('an uncaught error (built dist/main.js)', () => {
  it('logs one fatal line with the error, its stack and origin, then exits with code 1', async () => {
    node = await startClusterNode('fatal', {}, { nodeArguments: ['--import', throwingPreload()] });
    const exited = exitOf(node, 60_000);
    node.process.kill('SIGUSR2');
    expect(await exited).toBe(1);
    const fatal = node
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.level === 60);
    expect(fatal).toMatchObject({
      msg: 'uncaught error: the process exits',
      origin: 'uncaughtException',
      err: {
        message: 'thrown by a callback outside the server',
        stack: expect.stringContaining('throw-on-usr2.mjs'),
      },
    });
  }, 120_000);
});
