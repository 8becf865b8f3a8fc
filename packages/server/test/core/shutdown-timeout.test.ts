import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startClusterNode } from '../cluster/cluster-nodes.js';

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
  it('cuts a request still running when its share of the configured time after SIGTERM is over, then exits 0', async () => {
    // 2 s: requests get 1 s, closing the features the other second (a loaded machine is slow).
    const node = await startClusterNode('shutdown', { SHUTDOWN_TIMEOUT_MS: '2000' });
    try {
      const held = holdUpload(Number(new URL(node.url).port));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = new Promise<number | null>((resolve) =>
        node.process.once('exit', (code) => resolve(code)),
      );
      node.process.kill('SIGTERM');
      expect(await held.answered).toBe('');
      expect(await exited).toBe(0);
      expect(node.output()).toMatch(/"drainMs":1000,"timeoutMs":2000,"msg":"shutting down"/);
    } finally {
      await node.kill('SIGKILL');
    }
  });
});
