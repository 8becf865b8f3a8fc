// Child processes the benchmarks measure: servers that print a JSON log line with
// `"msg": "server listening"` and their `port` (the reference server does at LOG_LEVEL=info, and
// the bare reference servers print one of their own).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

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
