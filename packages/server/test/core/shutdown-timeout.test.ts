import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const mainScript = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Opens an upload whose body never completes; resolves with what the server sent before closing. */
function holdUpload(port: number): { answered: Promise<string> } {
  let answer = '';
  const socket = net.connect(port, '127.0.0.1', () => {
    socket.write(
      'POST /preview/image/80x80/ HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n' +
        'Content-Length: 100000\r\n\r\n--b\r\n',
    );
  });
  socket.on('data', (chunk) => {
    answer += chunk.toString();
  });
  socket.on('error', () => {});
  return { answered: new Promise((resolve) => socket.on('close', () => resolve(answer))) };
}

describe('SHUTDOWN_TIMEOUT_MS (built dist/main.js)', () => {
  it('cuts a request still running when the configured time after SIGTERM is over, then exits 0', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'collab-shutdown-'));
    const child = spawn(process.execPath, [mainScript], {
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: '0',
        DOCUMENT_CONVERTER: 'none',
        SHUTDOWN_TIMEOUT_MS: '300',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let stdout = '';
      const port = await new Promise<number>((resolve) => {
        child.stdout.on('data', (chunk) => {
          stdout += String(chunk);
          const listening = /"port":(\d+).*"msg":"server listening"/.exec(stdout);
          if (listening) resolve(Number(listening[1]));
        });
      });
      const held = holdUpload(port);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await held.answered).toBe('');
      expect(await exited).toBe(0);
      expect(stdout).toMatch(/"timeoutMs":300,"msg":"shutting down"/);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
