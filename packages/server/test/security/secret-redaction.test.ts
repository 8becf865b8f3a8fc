import { Writable } from 'node:stream';
import { Router } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createErrorHandler } from '../../src/http/error-handler.js';
import { HttpError } from '../../src/http/http-error.js';
import { type RunningServer, startServer } from '../../src/start-server.js';
import { openNamed } from '../../src/startup-error.js';
import { logStartupSummary } from '../../src/startup-summary.js';
import { configRefusal } from '../support/config-refusal.js';
import { testJwtSecret } from '../support/test-server.js';

// Every output a secret could reach (configuration errors, start-up lines, request logs) is grepped
// for a password planted in the input.

const PLANTED = 'planted-Pa55word';

/** A logger writing into a string, and that string. */
function capturedLogger() {
  const output = { text: '' };
  const sink = new Writable({
    write(chunk, _encoding, done) {
      output.text += String(chunk);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), output };
}

describe('configuration errors never print a secret', () => {
  it.each([
    ['AUTH_JWT_SECRET', PLANTED],
    ['CHAT_DATABASE_URL', `mysql://chat:${PLANTED}@db/chat`],
    ['SAML_DATABASE_URL', `postgress://saml:${PLANTED}@db/saml`],
    ['CHAT_REDIS_URL', `http://:${PLANTED}@cache:6379`],
    ['STORAGE_URL', `ftp://files.internal/?token=${PLANTED}`],
    ['DOCUMENT_CONVERTER_URL', `ftp://user:${PLANTED}@converter`],
  ])('refuses a bad %s without echoing its password', (name, value) => {
    const message = configRefusal({ [name]: value });
    expect(message).toContain(name);
    expect(message).not.toContain(PLANTED);
  });

  it('names the unreachable dependency without the password it was given, even when the driver echoes it', async () => {
    const url = `postgres://chat:${PLANTED}@db.internal/chat`;
    const failure = openNamed('CHAT_DATABASE_URL', 'PostgreSQL', url, async () => {
      throw new Error(`connect failed for ${url} (password ${PLANTED} refused)`);
    });
    await expect(failure).rejects.toThrow(
      'CHAT_DATABASE_URL: could not connect to PostgreSQL at db.internal/chat',
    );
    await expect(failure).rejects.not.toThrow(PLANTED);
  });
});

describe('start-up lines never print a secret', () => {
  it('name where each engine runs, without passwords', () => {
    const config = loadConfig({
      DATA_DIR: '/tmp/collab-redaction-test',
      CHAT_DATABASE_URL: `postgres://chat:${PLANTED}@db.internal/chat`,
      SAML_DATABASE_URL: `postgresql://saml:${PLANTED}@db.internal/saml?password=${PLANTED}`,
      CHAT_REDIS_URL: `redis://:${PLANTED}@cache.internal:6379/2`,
      STORAGE_URL: `https://files:${PLANTED}@storage.internal/`,
      DOCUMENT_CONVERTER: 'remote',
      DOCUMENT_CONVERTER_URL: `https://convert:${PLANTED}@converter.internal/`,
      CHAT_XMPP_URL: `https://admin:${PLANTED}@xmpp.internal:5443/api`,
      CHAT_XMPP_DOMAIN: 'chat.example.com',
    });
    const { logger, output } = capturedLogger();
    logStartupSummary(config, logger);
    expect(output.text).toContain('db.internal/chat');
    expect(output.text).toContain('storage.internal');
    expect(output.text).not.toContain(PLANTED);
  });
});

describe('request logs never print a secret', () => {
  let running: RunningServer | undefined;
  let url = '';
  const { logger, output } = capturedLogger();

  beforeAll(async () => {
    const router = Router();
    router.get('/probe/fine', (_request, response) => {
      response.json({ fine: true });
    });
    router.get('/probe/refused', () => {
      throw new HttpError(400, 'refused on purpose');
    });
    router.get('/probe/boom', () => {
      throw new Error('unexpected on purpose');
    });
    router.use(createErrorHandler());
    const config = loadConfig({
      AUTH_JWT_SECRET: testJwtSecret,
      DATA_DIR: '/tmp/collab-redaction-test',
      DOCS_ENABLED: 'false',
    });
    const app = await createApp({
      config,
      logger,
      features: async () => [{ name: 'probe', basePath: '/', router }],
    });
    running = await startServer(app, { host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${running.port}`;
  });
  afterAll(async () => {
    await running?.stop(1_000);
  });

  /** Waits until the log holds the line of `requestId` (written when the response closes). */
  async function logLineOf(requestId: string | null): Promise<string> {
    // A deadline, not a count of tries: on a loaded machine each pause lasts longer than asked.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const line = output.text.split('\n').find((entry) => requestId && entry.includes(requestId));
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no log line for request ${requestId}`);
  }

  it.each([
    ['a success', '/probe/fine'],
    ['a refused request', '/probe/refused'],
    ['a server error', '/probe/boom'],
    ['an unknown route', '/probe/none'],
  ])('of %s hold neither URL passwords nor secret query values', async (_case, path) => {
    const query = [
      `url=${encodeURIComponent(`https://user:${PLANTED}@idp.example/metadata`)}`,
      `raw=https://user:${PLANTED}@idp.example/x`,
      `token=${PLANTED}`,
      `key=${PLANTED}`,
      `signature=${PLANTED}`,
      `password=${PLANTED}`,
      'page=2',
    ].join('&');
    const response = await fetch(`${url}${path}?${query}`);
    await response.arrayBuffer();
    const line = await logLineOf(response.headers.get('x-request-id'));
    expect(line).toContain('page=2');
    expect(line).toContain('idp.example');
    expect(output.text).not.toContain(PLANTED);
  });
});
