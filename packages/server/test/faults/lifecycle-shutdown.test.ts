import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { openEvents, users } from '../chat/chat-test-support.js';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { testJwtSecret } from '../support/test-server.js';
import { exitOf, untilOutput } from './lifecycle-support.js';

let node: ClusterNode | undefined;
afterEach(async () => {
  await node?.kill('SIGKILL');
  node = undefined;
});

/** Resolves with the close code and reason `socket` receives. */
function closeOf(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
}

/** Opens an upload whose body never completes; resolves once the server closed the connection. */
function holdUpload(port: number): Promise<void> {
  const socket = net.connect(port, '127.0.0.1', () => {
    socket.write(
      'POST /preview/image/80x80/ HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n' +
        'Content-Length: 100000\r\n\r\n--b\r\n',
    );
  });
  socket.on('error', () => {});
  return new Promise((resolve) => socket.on('close', () => resolve()));
}

/**
 * Opens `/events` by hand and then never answers anything, like a peer whose network went away:
 * it will not send the close frame back. Resolves once the 101 arrived, with a promise of the
 * connection's end.
 */
async function openSilentEvents(port: number, token: string): Promise<{ ended: Promise<void> }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(
    'GET /events HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
      `Authorization: Bearer ${token}\r\n\r\n`,
  );
  let received = '';
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) resolve();
    });
    socket.once('close', () => reject(new Error(`the upgrade was refused: ${received}`)));
  });
  expect(received).toMatch(/^HTTP\/1\.1 101 /);
  return { ended };
}

/** Starts a server, waiting until it logged the request `holdUpload` began (so it is in flight). */
async function startWithHeldRequest(name: string, timeoutMs: number) {
  const started = await startClusterNode(name, { SHUTDOWN_TIMEOUT_MS: String(timeoutMs) });
  const held = holdUpload(Number(new URL(started.url).port));
  // An answer on another connection: the server is serving, and the held one was opened before.
  expect((await fetch(`${started.url}/health/live/`)).status).toBe(200);
  return { started, held };
}

describe('SIGTERM (built dist/main.js)', () => {
  it('closes every /events socket with 1001 and exits 0 within SHUTDOWN_TIMEOUT_MS', async () => {
    const timeoutMs = 5000;
    node = await startClusterNode('sigterm-events', {
      AUTH_JWT_SECRET: testJwtSecret,
      SHUTDOWN_TIMEOUT_MS: String(timeoutMs),
    });
    const { alice, bob } = users('alice', 'bob');
    const sockets = [
      await openEvents(node.url, await signLocalToken(testJwtSecret, { userId: alice })),
      await openEvents(node.url, await signLocalToken(testJwtSecret, { userId: bob })),
    ];
    const closes = sockets.map((events) => closeOf(events.socket));
    const exited = exitOf(node, 120_000);
    const signalledAt = Date.now();
    node.process.kill('SIGTERM');
    const codes = await Promise.all(closes);
    expect(codes).toEqual([
      { code: 1001, reason: 'server stopping' },
      { code: 1001, reason: 'server stopping' },
    ]);
    expect(await exited).toBe(0);
    // A loose bound (a loaded machine is slow): what matters is that it exits at all.
    expect(Date.now() - signalledAt).toBeLessThan(3 * timeoutMs);
    expect(node.output()).toContain('"msg":"shutting down"');
  }, 180_000);

  it('exits after SHUTDOWN_TIMEOUT_MS when a request never finishes, cutting it', async () => {
    const timeoutMs = 1500;
    const { started, held } = await startWithHeldRequest('sigterm-held', timeoutMs);
    node = started;
    const exited = exitOf(node, 120_000);
    const signalledAt = Date.now();
    node.process.kill('SIGTERM');
    await held;
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(3 * timeoutMs);
  }, 180_000);

  it('a second SIGTERM exits at once with code 1, long before the bound', async () => {
    const timeoutMs = 600_000;
    const { started } = await startWithHeldRequest('sigterm-twice', timeoutMs);
    node = started;
    const exited = exitOf(node, 120_000);
    node.process.kill('SIGTERM');
    await untilOutput(node, /"msg":"shutting down"/);
    node.process.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(node.output()).toContain('second signal during shutdown: exiting now');
  }, 180_000);

  it('exits 0 within the bound when an /events peer never answers the close frame', async () => {
    const timeoutMs = 3000;
    node = await startClusterNode('sigterm-silent-peer', {
      AUTH_JWT_SECRET: testJwtSecret,
      SHUTDOWN_TIMEOUT_MS: String(timeoutMs),
    });
    const { alice } = users('alice');
    const silent = await openSilentEvents(
      Number(new URL(node.url).port),
      await signLocalToken(testJwtSecret, { userId: alice }),
    );
    const exited = exitOf(node, 120_000);
    const signalledAt = Date.now();
    node.process.kill('SIGTERM');
    await silent.ended;
    // 0: the connection was cut at the end of the requests' share of the bound, and the features
    // then closed; the WebSocket library alone would have waited 30 s for the peer.
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(3 * timeoutMs);
  }, 180_000);
});
