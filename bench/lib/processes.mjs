// Child processes the benchmarks measure: the reference server (startReferenceServer), and bare
// reference servers that print a JSON line with `"msg": "server listening"` and their `port`
// (startListeningProcess).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const serverMain = fileURLToPath(new URL('../../packages/server/dist/main.js', import.meta.url));

/** Starts `node <args>` with `env` added, and resolves once it says which port it listens on. */
export async function startListeningProcess(args, env = {}) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (const line of buffered.split('\n')) {
        if (line.includes('server listening')) resolve(JSON.parse(line).port);
      }
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code} before listening`)));
  });
  child.stdout.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** CPU milliseconds used so far by every thread of process `pid` (utime + stime, 10 ms ticks). */
export function cpuMillisecondsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Chat limits a benchmark that creates rooms as fast as it can turns off (per-user rate and count). */
export const unlimitedChatEnv = {
  CHAT_ROOM_CREATIONS_PER_MINUTE: '100000000',
  CHAT_MAX_ROOMS_PER_USER: '100000000',
};

/**
 * Starts the reference server (packages/server/dist/main.js; run `pnpm build` first) on a free
 * loopback port with a fresh DATA_DIR, API docs off and no LibreOffice pool (an idle pool would
 * take cores and memory from the work measured), then `env` on top; resolves once `/health/live/`
 * answers, whatever LOG_LEVEL says; `nodeArgs` go to node before the script (e.g. `--cpu-prof`).
 * `stop()` ends it and removes its DATA_DIR.
 */
export async function startReferenceServer(env = {}, nodeArgs = []) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-server-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, serverMain], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DOCS_ENABLED: 'false',
      DOCUMENT_CONVERTER: 'none',
      // Benchmarks upload as fast as they can from one address.
      PREVIEW_UPLOADS_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries += 1) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before listening`);
    const live = await fetch(`${url}/health/live/`).catch(() => undefined);
    if (live?.status === 200) break;
    if (tries > 600) {
      await stop();
      throw new Error('the server never listened');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  /** Sends `signal` (SIGKILL by default: a crash) and resolves once the process is gone. */
  const kill = async (signal = 'SIGKILL') => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    }
  };
  return { url, pid: child.pid, dataDir, stop, kill };
}
