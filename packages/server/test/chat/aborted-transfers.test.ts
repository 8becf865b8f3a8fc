import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { createChatFeature } from '../../src/chat/chat-feature.js';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/start-server.js';
import { testJwtSecret } from '../support/test-server.js';
import { users } from './chat-test-support.js';

/** Sends a request whose body stops after `sent` of `declared` bytes, then resets the connection. */
function cutUpload(port: number, target: string, headers: string, declared: number, sent: number) {
  return new Promise<void>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`POST ${target} HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${declared}\r\n\r\n`);
      socket.write(Buffer.alloc(sent, 7));
      setTimeout(() => socket.resetAndDestroy(), 100);
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve());
  });
}

describe('transfers a client cuts off', () => {
  const lines: Record<string, unknown>[] = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'collab-aborted-'));
  let running: RunningServer;
  let url = '';
  const { alice } = users('alice');
  let token = '';

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).trim().split('\n')) lines.push(JSON.parse(line));
        done();
      },
    });
    const config = loadConfig({
      AUTH_JWT_SECRET: testJwtSecret,
      DATA_DIR: dataDir,
      DOCUMENT_CONVERTER: 'none',
    });
    // Express prints errors it gets after the headers went out, except when NODE_ENV is `test`
    // (vitest's default): the app is created as it runs in production.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    const app = await createApp({
      config,
      logger: pino({ level: 'info' }, sink),
      features: async (context) => [await createChatFeature(context)],
    }).finally(() => {
      process.env.NODE_ENV = nodeEnv;
    });
    running = await startServer(app, { host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${running.port}`;
    token = await signLocalToken(testJwtSecret, { userId: alice });
  });
  afterAll(async () => {
    await running?.stop(1_000);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (method: string, target: string, body?: Uint8Array | string, headers = {}) =>
    fetch(`${url}${target}`, { method, body, headers: { authorization: `Bearer ${token}`, ...headers } });
  const errorsLoggedSince = (start: number) => lines.slice(start).filter((line) => Number(line.level) >= 50);

  it('an upload cut off mid-body stores nothing and is not logged as a server error', async () => {
    const room = (await (
      await call('POST', '/rooms', JSON.stringify({ type: 'temporary', name: 'Cut' }), {
        'content-type': 'application/json',
      })
    ).json()) as { id: string };
    const start = lines.length;
    const headers = `Authorization: Bearer ${token}\r\nfileName: cut.bin\r\nmimeType: application/octet-stream\r\n`;
    await cutUpload(running.port, `/rooms/${room.id}/attachments`, headers, 1_000_000, 100_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(errorsLoggedSince(start)).toEqual([]);
    expect(await (await call('GET', `/rooms/${room.id}/attachments`)).json()).toEqual({ attachments: [] });
  });

  it('a download the client stops reading is not reported as an error', async () => {
    const room = (await (
      await call('POST', '/rooms', JSON.stringify({ type: 'temporary', name: 'Big' }), {
        'content-type': 'application/json',
      })
    ).json()) as { id: string };
    const uploaded = await call('POST', `/rooms/${room.id}/attachments`, Buffer.alloc(20 * 1024 * 1024, 1), {
      fileName: 'big.bin',
      mimeType: 'application/octet-stream',
      'content-type': 'application/octet-stream',
    });
    const { id } = (await uploaded.json()) as { id: string };
    const start = lines.length;
    const printed = vi.spyOn(console, 'error');
    try {
      const response = await call('GET', `/attachments/${id}/download`, undefined);
      const reader = response.body?.getReader();
      await reader?.read();
      await reader?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(printed).not.toHaveBeenCalled();
      expect(errorsLoggedSince(start)).toEqual([]);
      expect((await call('GET', `/attachments/${id}`)).status).toBe(200);
    } finally {
      printed.mockRestore();
    }
  });
});
