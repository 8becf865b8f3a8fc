import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from './free-port.js';

/** A redis-server of the test's own on a free loopback port, so a test can stop Redis under a client. */
export interface PrivateRedis {
  url: string;
  /** Kills the server (SIGKILL) and resolves once it is gone. */
  stop(): Promise<void>;
  /**
   * Kills the server and starts a new one on the same port (clients reconnect to it): empty, or with
   * the data of its append-only file when started with `appendOnly`, unless `empty` (the file is
   * removed first: a restart that lost its data).
   */
  restart(options?: { empty?: boolean }): Promise<void>;
  /** Starts the server again after {@link PrivateRedis.stop}; a no-op while it runs. */
  start(): Promise<void>;
  /**
   * Freezes the server (SIGSTOP): connections stay open and new ones are taken by the kernel, but
   * nothing answers, like a Redis that hangs, for as long as the test needs (no race with a timer).
   */
  pause(): void;
  /** Lets a paused server run on (SIGCONT). */
  resume(): void;
}

/** Options of {@link startPrivateRedis}. */
export interface PrivateRedisOptions {
  /** Persist every write to an append-only file (fsync on every write), so a restart keeps the data. @default false */
  appendOnly?: boolean;
}

/** Spawns `redis-server` on `port`, with an append-only file in `folder` if given; resolves once it accepts connections. */
async function spawnRedis(
  port: number,
  folder: string | undefined,
): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const persistence =
    folder === undefined
      ? ['--appendonly', 'no']
      : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', folder];
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`redis-server exited with ${code}: ${output.slice(-500)}`)),
    );
  });
  return { child, exited };
}

/** Starts `redis-server` on a free port and waits until it accepts connections. */
export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const port = await freeLoopbackPort();
  const folder = options.appendOnly ? mkdtempSync(path.join(tmpdir(), 'collab-redis-')) : undefined;
  let running: { child: ChildProcess; exited: Promise<void> } | undefined = await spawnRedis(port, folder);
  let paused = false;
  const resume = () => {
    if (!paused) return;
    paused = false;
    running?.child.kill('SIGCONT');
  };
  const stop = async () => {
    const current = running;
    if (current === undefined) return;
    running = undefined;
    paused = false;
    current.child.kill('SIGKILL');
    await current.exited;
  };
  const start = async () => {
    if (running === undefined) running = await spawnRedis(port, folder);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    pause() {
      if (paused || running === undefined) return;
      paused = true;
      running.child.kill('SIGSTOP');
    },
    resume,
    async restart(restartOptions = {}) {
      await stop();
      if (restartOptions.empty && folder !== undefined) {
        for (const entry of readdirSync(folder))
          rmSync(path.join(folder, entry), { recursive: true, force: true });
      }
      await start();
    },
  };
}
