import { Writable } from 'node:stream';
import { Router } from 'express';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createErrorHandler } from '../../src/http/error-handler.js';
import { HttpError } from '../../src/http/http-error.js';
import { type RunningServer, startServer } from '../../src/start-server.js';
import { testJwtSecret } from '../support/test-server.js';

interface LogEntry {
  level: number;
  msg: string;
  req?: { id?: string; method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string };
}

const levels = { debug: 20, info: 30, error: 50 };

function probeFeature() {
  const router = Router();
  router.get('/probe/fine', (_request, response) => {
    response.json({ fine: true });
  });
  router.get('/probe/refused', () => {
    throw new HttpError(409, 'refused on purpose');
  });
  router.get('/probe/boom', () => {
    throw new Error('unexpected on purpose');
  });
  router.get('/probe/logs', (request, response) => {
    request.log?.info({ step: 'inside' }, 'handler line');
    response.json({ id: request.id });
  });
  router.use(createErrorHandler());
  return { name: 'probe', basePath: '/', router };
}

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.stop(1_000);
  running = undefined;
});

/** A server on a random port whose log lines (at `level`) are collected as parsed JSON. */
async function serverLoggingAt(level: string, env: Record<string, string> = {}) {
  const entries: LogEntry[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).trim().split('\n')) entries.push(JSON.parse(line) as LogEntry);
      done();
    },
  });
  const config = loadConfig({
    AUTH_JWT_SECRET: testJwtSecret,
    DATA_DIR: '/tmp/collab-logging-test',
    DOCS_ENABLED: 'false',
    ...env,
  });
  const app = await createApp({
    config,
    logger: pino({ level }, sink),
    features: async () => [probeFeature()],
  });
  running = await startServer(app, { host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${running.port}`;
  /** Log lines are written when the response closes, just after the client has it: wait for them. */
  const linesFor = async (requestId: string | null, count: number) => {
    for (let tries = 0; tries < 100; tries += 1) {
      const found = entries.filter((entry) => entry.req?.id === requestId);
      if (found.length >= count) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return entries.filter((entry) => entry.req?.id === requestId);
  };
  return { url, entries, linesFor };
}

describe('request ids', () => {
  it('keeps a caller X-Request-Id made of word characters, dots and dashes', async () => {
    const { url } = await serverLoggingAt('silent');
    const response = await fetch(`${url}/probe/fine`, { headers: { 'x-request-id': 'edge-42.a_b' } });
    expect(response.headers.get('x-request-id')).toBe('edge-42.a_b');
  });

  it('replaces a caller X-Request-Id that is too long or has other characters with a UUID', async () => {
    const { url } = await serverLoggingAt('silent');
    for (const incoming of ['a'.repeat(129), 'has space', 'semi;colon']) {
      const response = await fetch(`${url}/probe/fine`, { headers: { 'x-request-id': incoming } });
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('gives every request its own id', async () => {
    const { url } = await serverLoggingAt('silent');
    const first = await fetch(`${url}/probe/fine`);
    const second = await fetch(`${url}/probe/fine`);
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
  });
});

describe('request log lines', () => {
  it('log a successful request at info with its id, method, url, status, time and client address', async () => {
    const { url, linesFor } = await serverLoggingAt('info');
    const response = await fetch(`${url}/probe/fine?x=1`);
    const [line] = await linesFor(response.headers.get('x-request-id'), 1);
    expect(line).toMatchObject({
      level: levels.info,
      msg: 'request completed',
      req: { method: 'GET', url: '/probe/fine?x=1' },
      res: { statusCode: 200 },
      client: expect.stringMatching(/127\.0\.0\.1$/),
    });
    expect(line?.responseTime).toBeGreaterThanOrEqual(0);
  });

  it('leave successful requests out at info with LOG_REQUEST_LEVEL=debug, but log refused ones at info', async () => {
    const { url, entries, linesFor } = await serverLoggingAt('info', { LOG_REQUEST_LEVEL: 'debug' });
    const fine = await fetch(`${url}/probe/fine`);
    const refused = await fetch(`${url}/probe/refused`);
    expect(refused.status).toBe(409);
    const [line] = await linesFor(refused.headers.get('x-request-id'), 1);
    expect(line).toMatchObject({ level: levels.info, msg: 'request completed', res: { statusCode: 409 } });
    expect(entries.filter((entry) => entry.req?.id === fine.headers.get('x-request-id'))).toEqual([]);
  });

  it('take the client address from X-Forwarded-For only from a trusted proxy', async () => {
    const trusting = await serverLoggingAt('info', { TRUST_PROXY: 'loopback' });
    const response = await fetch(`${trusting.url}/probe/fine`, {
      headers: { 'x-forwarded-for': '198.51.100.7' },
    });
    const [line] = await trusting.linesFor(response.headers.get('x-request-id'), 1);
    expect(line).toMatchObject({ client: '198.51.100.7' });
  });

  it('log a server error at error with its cause, after the error handler line with the same request id', async () => {
    const { url, linesFor } = await serverLoggingAt('error');
    const response = await fetch(`${url}/probe/boom`);
    expect(response.status).toBe(500);
    const lines = await linesFor(response.headers.get('x-request-id'), 2);
    expect(lines.map((line) => line.msg)).toEqual([
      'unexpected error while handling the request',
      'request errored',
    ]);
    expect(lines[1]).toMatchObject({ level: levels.error, res: { statusCode: 500 } });
    expect((lines[1] as unknown as { cause: { message: string } }).cause.message).not.toBe(
      'no error was reported',
    );
    expect(lines[1]).not.toHaveProperty('err');
  });

  it('log a 404 for an unknown route at info', async () => {
    const { url, linesFor } = await serverLoggingAt('info');
    const response = await fetch(`${url}/nowhere`);
    const [line] = await linesFor(response.headers.get('x-request-id'), 1);
    expect(line).toMatchObject({ level: levels.info, req: { url: '/nowhere' }, res: { statusCode: 404 } });
  });

  it('carry the request id on lines a handler writes through request.log', async () => {
    const { url, linesFor } = await serverLoggingAt('info');
    const response = await fetch(`${url}/probe/logs`);
    const body = (await response.json()) as { id: string };
    expect(body.id).toBe(response.headers.get('x-request-id'));
    const [line] = await linesFor(body.id, 1);
    expect(line).toMatchObject({ level: levels.info, msg: 'handler line', req: { method: 'GET' } });
  });
});
