import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from './free-port.js';

/** A PostgreSQL server of the test's own (initdb in a temporary folder), so a test can stop it under a client. */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`; create databases of your own on it. */
  url: string;
  port: number;
  /** Stops the server: `fast` (like `pg_ctl stop -m fast`, SIGINT) or `kill` (SIGKILL, a crash). */
  stop(mode?: 'fast' | 'kill'): Promise<void>;
  /** Starts it again on the same port and folder (data kept); resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and resolves once it accepts connections again: `pg_ctl restart -m fast`. */
  restart(): Promise<void>;
  /**
   * Freezes the server and its backends (SIGSTOP): connections stay open and new ones are taken by
   * the kernel, but nothing answers, like a host that hangs or a network that drops every packet.
   */
  pause(): void;
  /** Lets a paused server run on (SIGCONT). */
  resume(): void;
  /** Stops the server and removes its folder. */
  destroy(): Promise<void>;
}

const binaryFolders = [
  '/usr/lib/postgresql/16/bin',
  '/usr/lib/postgresql/15/bin',
  '/usr/lib/postgresql/17/bin',
];

/** Debian's PostgreSQL programs (`initdb`, `postgres`), or those on PATH. */
function postgresProgram(name: 'initdb' | 'postgres'): string {
  for (const folder of binaryFolders) {
    const candidate = path.join(folder, name);
    if (existsSync(candidate)) return candidate;
  }
  return name;
}

/**
 * PostgreSQL refuses to run as root: as root, run its programs as the `postgres` user. `setpriv`
 * execs the program in place, so signals sent to the child reach the postmaster itself.
 */
function asDatabaseUser(program: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [program, args];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', program, ...args]];
}

function spawnPostgres(
  folder: string,
  port: number,
): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const [command, args] = asDatabaseUser(postgresProgram('postgres'), [
    '-D',
    folder,
    '-p',
    String(port),
    '-k',
    folder,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'max_connections=200',
  ]);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('database system is ready to accept connections')) {
        child.stderr?.off('data', onData);
        // Keep draining, or a full pipe would block the server.
        child.stderr?.resume();
        resolve({ child, exited });
      }
    };
    child.stderr?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`postgres exited with ${code}: ${output.slice(-800)}`)));
  });
}

/** `pid` and its descendants, parents first (a stopped parent forks no new child meanwhile). */
function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)])
      .toString()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
  } catch {
    // pgrep exits 1 when there is no child.
  }
  return [pid, ...children.flatMap(processTree)];
}

/** Sends `signal` to every process of a tree, ignoring those gone meanwhile. */
function signalTree(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  for (const member of processTree(pid)) {
    try {
      process.kill(member, signal);
    } catch {
      // Exited meanwhile.
    }
  }
}

/**
 * Runs `initdb` in a new temporary folder and starts `postgres` on a free loopback port (trust
 * authentication, user `postgres`, no fsync). As root it runs them as the `postgres` user.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const root = mkdtempSync(path.join(tmpdir(), 'collab-pg-'));
  const folder = path.join(root, 'data');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(root, uid, gid);
  }
  const [initCommand, initArgs] = asDatabaseUser(postgresProgram('initdb'), [
    '-D',
    folder,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
  ]);
  execFileSync(initCommand, initArgs, { stdio: 'pipe' });
  const port = await freeLoopbackPort();
  let running: { child: ChildProcess; exited: Promise<void> } | undefined = await spawnPostgres(folder, port);
  let paused = false;
  const resume = () => {
    if (!paused) return;
    paused = false;
    signalTree(running?.child.pid, 'SIGCONT');
  };
  const stop = async (mode: 'fast' | 'kill' = 'fast') => {
    resume();
    const current = running;
    if (current === undefined) return;
    running = undefined;
    current.child.kill(mode === 'fast' ? 'SIGINT' : 'SIGKILL');
    await current.exited;
    if (mode === 'kill') {
      // Children of a killed postmaster end once they notice; the next start waits for the port.
      rmSync(path.join(folder, 'postmaster.pid'), { force: true });
    }
  };
  const start = async () => {
    if (running !== undefined) return;
    for (let attempt = 0; ; attempt += 1) {
      try {
        running = await spawnPostgres(folder, port);
        return;
      } catch (error) {
        // Backends of a killed server may hold the port or shared memory for a moment.
        if (attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    async restart() {
      await stop('fast');
      await start();
    },
    pause() {
      if (paused || running === undefined) return;
      paused = true;
      signalTree(running.child.pid, 'SIGSTOP');
    },
    resume,
    async destroy() {
      await stop('fast');
      rmSync(root, { recursive: true, force: true });
    },
  };
}
