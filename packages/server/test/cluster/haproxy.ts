import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '@collab-suite/chat-domain/testing';

/** HAProxy running in front of some servers. */
export interface RunningHaproxy {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts Debian's HAProxy in the foreground, balancing round robin over `servers` (name and URL),
 * WebSocket upgrades included, with a health check on `/health/live/` and connection failures retried
 * on another server. Each response names the server that answered in `X-Served-By`.
 */
export async function startHaproxy(
  servers: readonly { name: string; url: string }[],
): Promise<RunningHaproxy> {
  const port = await freeLoopbackPort();
  const folder = mkdtempSync(path.join(tmpdir(), 'collab-haproxy-'));
  const configuration = [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  option redispatch',
    '  retries 3',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout tunnel 1h',
    'frontend api',
    `  bind 127.0.0.1:${port}`,
    '  default_backend api_nodes',
    'backend api_nodes',
    '  balance roundrobin',
    '  option httpchk GET /health/live/',
    '  http-response set-header X-Served-By %s',
    ...servers.map(({ name, url }) => `  server ${name} ${new URL(url).host} check inter 300 fall 2 rise 1`),
    '',
  ].join('\n');
  const file = path.join(folder, 'haproxy.cfg');
  writeFileSync(file, configuration);
  const program = existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';
  const child: ChildProcess = spawn(program, ['-f', file, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`haproxy stopped at start:\n${errors}`);
      const answered = await fetch(`${url}/health/live/`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (answered) break;
      if (Date.now() > deadline) throw new Error(`haproxy did not answer within 30 s:\n${errors}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
