import { Writable } from 'node:stream';
import { Router } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { requireAdmin, requireUser } from '../../src/auth/require-principal.js';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { loadConfig } from '../../src/config.js';
import type { FeatureContext, ServerFeature } from '../../src/feature.js';
import { createErrorHandler } from '../../src/http/error-handler.js';
import { startServer } from '../../src/start-server.js';
import { fetchHealth, startTestServer, type TestServer, testJwtSecret } from '../support/test-server.js';

function probeFeature(context: FeatureContext): ServerFeature {
  const router = Router();
  router.get('/probe/boom', () => {
    throw new Error('secret internal detail at /var/lib/thing');
  });
  router.get('/probe/user', requireUser(context.authenticator), (_request, response) => {
    response.json({ userId: response.locals.principal?.userId });
  });
  router.get('/probe/admin', requireAdmin(context.authenticator), (_request, response) => {
    response.json({ admin: true });
  });
  router.use(createErrorHandler());
  return {
    name: 'probe',
    basePath: '/api',
    router,
    openapi: {
      paths: { '/probe/user': { get: { summary: 'who am I', responses: { 200: { description: 'ok' } } } } },
    },
    health: [
      { name: 'always-fine', required: true, check: async () => ({ live: true, ready: true }) },
      {
        name: 'optional-broken',
        required: false,
        check: async () => {
          throw new Error('connection refused');
        },
      },
    ],
  };
}

describe('reference server core', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ features: async (context) => [probeFeature(context)] });
  });
  afterAll(() => server.stop());

  it('GET /health/live/ answers 200', async () => {
    const response = await fetch(`${server.url}/health/live/`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ live: true });
  });

  it('GET /health/ lists every dependency with name, live, ready and required', async () => {
    const body = (await (await fetchHealth(server.url)).json()) as {
      ready: boolean;
      dependencies: unknown[];
    };
    expect(body.ready).toBe(true);
    expect(body.dependencies).toEqual([
      { name: 'always-fine', required: true, live: true, ready: true },
      {
        name: 'optional-broken',
        required: false,
        live: false,
        ready: false,
        details: { error: 'connection refused' },
      },
      {
        name: 'event-loop',
        required: false,
        live: true,
        ready: true,
        details: {
          delayMilliseconds: { p50: expect.any(Number), p99: expect.any(Number), max: expect.any(Number) },
        },
      },
    ]);
  });

  it('GET /health/ready/ answers 200 when only optional dependencies fail', async () => {
    expect((await fetch(`${server.url}/health/ready/`)).status).toBe(200);
  });

  it('answers an unknown route with 404 and a JSON detail', async () => {
    const response = await fetch(`${server.url}/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'no route for GET /nowhere' });
  });

  it('answers an unexpected error with a 500 that leaks nothing and carries a request id', async () => {
    const response = await fetch(`${server.url}/api/probe/boom`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ detail: 'internal server error' });
    expect(text).not.toContain('secret');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the OpenAPI 3.1 document with feature paths under their base path', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/api/probe/user');
  });

  it('serves the interactive docs page and its assets', async () => {
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/docs/assets/swagger-ui-bundle.js');
    const bundle = await fetch(`${server.url}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });

  describe('authentication', () => {
    const userId = '0b0a1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d';

    it('answers 401 without a token', async () => {
      const response = await fetch(`${server.url}/api/probe/user`);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    });

    it('answers 401 for a token signed with another secret', async () => {
      const token = await signLocalToken('another-secret-of-at-least-thirty-two-bytes', { userId });
      const response = await fetch(`${server.url}/api/probe/user`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(401);
    });

    it('answers 401 for an expired token', async () => {
      const token = await signLocalToken(testJwtSecret, { userId, expiresIn: '-1m' });
      const response = await fetch(`${server.url}/api/probe/user`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(401);
    });

    it('accepts a bearer token and the ZM_AUTH_TOKEN cookie', async () => {
      const token = await signLocalToken(testJwtSecret, { userId });
      const byHeader = await fetch(`${server.url}/api/probe/user`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(await byHeader.json()).toEqual({ userId });
      const byCookie = await fetch(`${server.url}/api/probe/user`, {
        headers: { cookie: `a=b; ZM_AUTH_TOKEN=${token}` },
      });
      expect(await byCookie.json()).toEqual({ userId });
    });

    it('answers 403 to a user without the admin role on an admin route, 200 to an admin', async () => {
      const user = await signLocalToken(testJwtSecret, { userId });
      const admin = await signLocalToken(testJwtSecret, { userId, admin: true });
      const refused = await fetch(`${server.url}/api/probe/admin`, {
        headers: { authorization: `Bearer ${user}` },
      });
      expect(refused.status).toBe(403);
      const allowed = await fetch(`${server.url}/api/probe/admin`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(allowed.status).toBe(200);
    });
  });
});

describe('readiness', () => {
  it('answers the status and message of the first required dependency that is not ready', async () => {
    const server = await startTestServer({
      features: async () => [
        {
          name: 'documents',
          basePath: '/',
          router: Router(),
          health: [
            {
              name: 'document-converter',
              required: true,
              unavailableStatus: 429,
              unavailableMessage: 'document preview is offline',
              check: async () => ({ live: false, ready: false }),
            },
          ],
        },
      ],
    });
    try {
      const response = await fetch(`${server.url}/health/ready/`);
      expect(response.status).toBe(429);
      expect(await response.json()).toEqual({ detail: 'document preview is offline' });
      expect((await fetch(`${server.url}/health/live/`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('logging', () => {
  it('logs an unexpected error with the request id and the stack', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).trim().split('\n'));
        done();
      },
    });
    const config = loadConfig({ AUTH_JWT_SECRET: testJwtSecret, DATA_DIR: '/tmp/collab-logging-test' });
    const app = await createApp({
      config,
      logger: pino({ level: 'info' }, sink),
      features: async (context) => [probeFeature(context)],
    });
    const running = await startServer(app, { host: '127.0.0.1', port: 0 });
    try {
      const response = await fetch(`http://127.0.0.1:${running.port}/api/probe/boom`);
      const requestId = response.headers.get('x-request-id');
      const entries = lines.map((line) => JSON.parse(line));
      const logged = entries.find((entry) => entry.msg === 'unexpected error while handling the request');
      expect(logged?.req?.id ?? logged?.reqId).toBe(requestId);
      expect(logged?.err?.stack).toContain('secret internal detail');
    } finally {
      await running.stop(1_000);
    }
  });
});

describe('request logs', () => {
  it('never contain the bearer token or the cookie', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const config = loadConfig({ AUTH_JWT_SECRET: testJwtSecret, DATA_DIR: '/tmp/collab-logging-test' });
    const app = await createApp({
      config,
      logger: pino({ level: 'trace' }, sink),
      features: async (context) => [probeFeature(context)],
    });
    const running = await startServer(app, { host: '127.0.0.1', port: 0 });
    try {
      const token = await signLocalToken(testJwtSecret, { userId: 'someone' });
      await fetch(`http://127.0.0.1:${running.port}/api/probe/user`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await fetch(`http://127.0.0.1:${running.port}/api/probe/admin`, {
        headers: { cookie: `ZM_AUTH_TOKEN=${token}` },
      });
      const text = lines.join('');
      expect(text).toContain('/api/probe/user');
      expect(text).not.toContain(token.split('.')[2]);
    } finally {
      await running.stop(1_000);
    }
  });
});

describe('/health/ for anonymous callers', () => {
  it('shows names and states, and leaves details to administrators (or HEALTH_DETAILS_PUBLIC)', async () => {
    const server = await startTestServer();
    const open = await startTestServer({ env: { HEALTH_DETAILS_PUBLIC: 'true' } });
    try {
      type Health = { dependencies: { name: string; ready: boolean; details?: unknown }[] };
      const anonymous = (await (await fetch(`${server.url}/health/`)).json()) as Health;
      expect(anonymous.dependencies.length).toBeGreaterThan(3);
      expect(anonymous.dependencies.every((entry) => !('details' in entry))).toBe(true);
      expect(anonymous.dependencies.find((entry) => entry.name === 'storage')).toEqual({
        name: 'storage',
        required: false,
        live: true,
        ready: true,
      });
      const admin = (await (await fetchHealth(server.url)).json()) as Health;
      expect(admin.dependencies.find((entry) => entry.name === 'storage')?.details).toMatchObject({
        kind: 'disk',
      });
      const public_ = (await (await fetch(`${open.url}/health/`)).json()) as Health;
      expect(public_.dependencies.find((entry) => entry.name === 'storage')?.details).toMatchObject({
        kind: 'disk',
      });
    } finally {
      await Promise.all([server.stop(), open.stop()]);
    }
  });
});
