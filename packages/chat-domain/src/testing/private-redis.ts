import { type ChildProcess, spawn } from 'node:child_process';
import { freeLoopbackPort } from './free-port.js';

/** A redis-server of the test's own on a free loopback port, so a test can stop Redis under a client. */
export interface PrivateRedis {
  url: string;
  /** Kills the server (SIGKILL) and resolves once it is gone. */
  stop(): Promise<void>;
  /** Starts a new, empty server on the same port once stopped (clients reconnect to it). */
  restart(): Promise<void>;
}

/** Spawns `redis-server` (no persistence) on `port`; resolves once it accepts connections. */
async function spawnRedis(port: number): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
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

/** Starts `redis-server` (no persistence) on a free port and waits until it accepts connections. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freeLoopbackPort();
  let running = await spawnRedis(port);
  const stop = async () => {
    running.child.kill('SIGKILL');
    await running.exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    async restart() {
      await stop();
      running = await spawnRedis(port);
    },
  };
}
