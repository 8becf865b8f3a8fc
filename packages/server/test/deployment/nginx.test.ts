import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import {
  imageFacts,
  isNear,
  pixelAt,
  QUADRANT_COLOURS,
  quadrantImage,
} from '@collab-suite/preview-core/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createApp } from '../../src/app.js';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/start-server.js';
import { testJwtSecret } from '../support/test-server.js';
import { type RunningNginx, startDocumentedNginx } from './documented-nginx.js';

/**
 * The test client connects from 127.0.0.2 (any 127/8 address is loopback on Linux), nginx from
 * 127.0.0.1: with TRUST_PROXY=127.0.0.1 the server must log 127.0.0.2, which only the
 * X-Forwarded-For header nginx adds can tell it.
 */
const clientAddress = '127.0.0.2';

interface LogLine {
  msg: string;
  req?: { id?: string; url?: string };
  client?: string;
  res?: { statusCode?: number };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

describe('the documented nginx configuration in front of the server', () => {
  let server: RunningServer;
  let nginx: RunningNginx;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'collab-nginx-test-'));
  const logLines: LogLine[] = [];
  const maxUploadBytes = 1024 * 1024;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).trim().split('\n')) logLines.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    const app = await createApp({
      config: loadConfig({
        DATA_DIR: dataDir,
        AUTH_JWT_SECRET: testJwtSecret,
        DOCUMENT_CONVERTER: 'none',
        TRUST_PROXY: '127.0.0.1',
        PREVIEW_MAX_UPLOAD_BYTES: String(maxUploadBytes),
        DOCS_ENABLED: 'false',
      }),
      logger: pino({ level: 'info' }, sink),
    });
    server = await startServer(app, { host: '127.0.0.1', port: 0 });
    nginx = await startDocumentedNginx(server.port);
  }, 120_000);
  afterAll(async () => {
    await nginx?.stop();
    await server?.stop(1_000);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** One HTTPS request through nginx from {@link clientAddress}, trusting nginx's certificate. */
  const send = (
    method: string,
    pathAndQuery: string,
    options: { headers?: Record<string, string>; body?: Uint8Array } = {},
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const outgoing = httpsRequest(
        `${nginx.httpsUrl}${pathAndQuery}`,
        { method, headers: options.headers, ca: nginx.certificate, localAddress: clientAddress },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () =>
            resolve({
              status: incoming.statusCode ?? 0,
              headers: incoming.headers,
              body: Buffer.concat(chunks),
            }),
          );
          incoming.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(options.body);
    });

  /** A multipart upload as a browser form sends it. */
  const multipart = async (bytes: Uint8Array, fileName: string) => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), fileName);
    const encoded = new Request('http://form.invalid/', { method: 'POST', body: form });
    return {
      headers: { 'content-type': encoded.headers.get('content-type') ?? '' },
      body: new Uint8Array(await encoded.arrayBuffer()),
    };
  };

  /** The request's log line (written when the response closes, just after the client has it). */
  const logLineOf = async (requestId: string) => {
    for (let tries = 0; tries < 500; tries += 1) {
      const line = logLines.find((entry) => entry.req?.id === requestId && entry.res !== undefined);
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no log line for request ${requestId}`);
  };

  it('answers GET /health/live/ through TLS and logs the client nginx names in X-Forwarded-For', async () => {
    const answer = await send('GET', '/health/live/');
    expect(answer.status).toBe(200);
    const requestId = String(answer.headers['x-request-id']);
    expect(await logLineOf(requestId)).toMatchObject({ client: clientAddress, res: { statusCode: 200 } });
  });

  it('does not believe an X-Forwarded-For the client made up: nginx appends the real address', async () => {
    const answer = await send('GET', '/health/', { headers: { 'x-forwarded-for': '198.51.100.7' } });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ dependencies: expect.any(Array) });
    expect((await logLineOf(String(answer.headers['x-request-id']))).client).toBe(clientAddress);
  });

  it('redirects plain HTTP to HTTPS', async () => {
    const answer = await new Promise<Answer>((resolve, reject) => {
      httpRequest(`${nginx.httpUrl}/health/`, (incoming) => {
        incoming.resume();
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.alloc(0) }),
        );
      })
        .on('error', reject)
        .end();
    });
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toMatch(/^https:\/\/127\.0\.0\.1(:\d+)?\/health\/$/);
  });

  it('passes a multipart image upload and answers its thumbnail', async () => {
    const upload = await multipart(await quadrantImage(400, 200, 'png'), 'photo.png');
    const answer = await send('POST', '/preview/image/100x100/thumbnail/?output_format=png', upload);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('image/png');
    expect(await imageFacts(answer.body)).toMatchObject({ format: 'png', width: 100, height: 100 });
    expect(isNear(await pixelAt(answer.body, 5, 5), QUADRANT_COLOURS.topLeft)).toBe(true);
    expect(isNear(await pixelAt(answer.body, 94, 94), QUADRANT_COLOURS.bottomRight)).toBe(true);
  });

  it("lets the server's own upload limit answer (413 with its JSON body), not nginx's", async () => {
    const upload = await multipart(new Uint8Array(maxUploadBytes + 64 * 1024), 'big.png');
    const answer = await send('POST', '/preview/image/100x100/thumbnail/', upload);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ detail: expect.any(String) });
  });

  it('keeps previews of stored files private (403 from nginx) while PREVIEW_STORED_AUTH is none', async () => {
    const stored = `/preview/image/${randomUUID()}/1/64x64/thumbnail/?service_type=files`;
    expect((await send('GET', stored)).status).toBe(403);
    expect((await send('HEAD', stored)).status).toBe(403);
  });

  it('keeps the conversion endpoint private (404 from nginx)', async () => {
    const answer = await send('POST', '/cool/convert-to/pdf', { body: new Uint8Array(10) });
    expect(answer.status).toBe(404);
  });

  it('upgrades /events to a WebSocket that receives the event of a room created over HTTPS', async () => {
    const alice = randomUUID();
    const bob = randomUUID();
    const carol = randomUUID();
    const token = (userId: string) => signLocalToken(testJwtSecret, { userId });
    const socket = new WebSocket(`${nginx.httpsUrl.replace('https', 'wss')}/events`, {
      headers: { authorization: `Bearer ${await token(bob)}` },
      ca: nginx.certificate,
      localAddress: clientAddress,
    });
    const messages: { type?: string; roomId?: string; queueId?: string }[] = [];
    const arrived = (predicate: (message: (typeof messages)[number]) => boolean) =>
      new Promise<(typeof messages)[number]>((resolve, reject) => {
        const found = messages.find(predicate);
        if (found) return resolve(found);
        const timer = setTimeout(
          () => reject(new Error(`no such message among ${JSON.stringify(messages)}`)),
          15_000,
        );
        socket.on('message', () => {
          const match = messages.find(predicate);
          if (match) {
            clearTimeout(timer);
            resolve(match);
          }
        });
      });
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    const opened = new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`the upgrade was answered with status ${response.statusCode}`)),
      );
      socket.once('error', reject);
    });
    try {
      await opened;
      expect(await arrived((message) => message.type === 'websocketConnected')).toMatchObject({
        queueId: expect.any(String),
      });
      socket.send(JSON.stringify({ type: 'ping' }));
      await arrived((message) => message.type === 'pong');

      const created = await send('POST', '/rooms', {
        headers: { authorization: `Bearer ${await token(alice)}`, 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ type: 'group', name: 'Through nginx', membersIds: [bob, carol] })),
      });
      expect(created.status, created.body.toString()).toBe(201);
      const roomId = (JSON.parse(created.body.toString()) as { id: string }).id;
      expect(
        await arrived((message) => message.type === 'ROOM_CREATED' && message.roomId === roomId),
      ).toMatchObject({ type: 'ROOM_CREATED', roomId });
    } finally {
      socket.terminate();
    }
  });
});
