import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testDatabaseUrl } from '../support/test-database.js';

const mainScript = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
/** The cluster tests' own PostgreSQL database. */
export function clusterPostgresUrl(): Promise<string> {
  return testDatabaseUrl('collab_test_cluster');
}

/** A server process of the cluster: `dist/main.js` with its own environment. */
export interface ClusterNode {
  readonly name: string;
  readonly url: string;
  readonly process: ChildProcess;
  /** Everything it printed, for failure messages. */
  output(): string;
  /** Sends `signal` (SIGKILL by default) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `dist/main.js` (built by `pnpm build`) on 127.0.0.1 and a free port, and resolves once it
 * logs `server listening` (within a minute: a loaded machine starts slowly).
 */
export async function startClusterNode(
  name: string,
  env: Record<string, string>,
  options: { nodeArguments?: string[] } = {},
): Promise<ClusterNode> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `collab-${name}-`));
  const child = spawn(process.execPath, [...(options.nodeArguments ?? []), mainScript], {
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      DOCUMENT_CONVERTER: 'none',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within 60 s:\n${output}`)),
      60_000,
    );
    const onData = (chunk: Buffer) => {
      output += String(chunk);
      const match =
        /"port":(\d+)[^\n]*"msg":"server listening"|"msg":"server listening"[^\n]*"port":(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1] ?? match[2]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      output += String(chunk);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${output}`));
    });
  });
  let port: number;
  try {
    port = await listening;
  } catch (error) {
    // A node that did not start must not outlive the test.
    child.kill('SIGKILL');
    throw error;
  }
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
