import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { startTestServer, type TestServer, testJwtSecret } from '../support/test-server.js';

describe('/metrics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  const get = async (path: string, token?: string) =>
    fetch(`${server.url}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

  it('answers Prometheus text to administrators only', async () => {
    expect((await get('/metrics')).status).toBe(401);
    const user = await signLocalToken(testJwtSecret, { userId: '7d0c1a4e-52f4-4d6c-9b1e-2f8a0c3e5b71' });
    expect((await get('/metrics', user)).status).toBe(403);
  });

  it('counts requests by route pattern and status, and reports dependencies and Node itself', async () => {
    const user = await signLocalToken(testJwtSecret, { userId: '7d0c1a4e-52f4-4d6c-9b1e-2f8a0c3e5b71' });
    await get('/rooms', user);
    await get('/rooms/0b6f3c2d-8e4a-4f1b-9c7d-5a2e1f3b4c6d', user);
    await get('/no/such/route');
    const admin = await signLocalToken(testJwtSecret, {
      userId: '7d0c1a4e-52f4-4d6c-9b1e-2f8a0c3e5b71',
      admin: true,
    });
    const response = await get('/metrics', admin);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(
      /collab_http_request_duration_seconds_count\{method="GET",route="\/rooms",status="200"\} 1/,
    );
    expect(text).toMatch(
      /collab_http_request_duration_seconds_count\{method="GET",route="\/rooms\/:roomId",status="404"\} 1/,
    );
    expect(text).toMatch(/route="unmatched",status="404"/);
    expect(text).toMatch(/collab_dependency_ready\{dependency="chat-database"\} 1/);
    expect(text).toMatch(
      /collab_dependency_detail\{dependency="pdf-renderer",detail="maxQueuedRenders"\} 32/,
    );
    expect(text).toMatch(
      /collab_dependency_detail\{dependency="event-loop",detail="delayMilliseconds_max"\} /,
    );
    expect(text).toMatch(/nodejs_eventloop_lag_seconds /);
    // At least the connection of this scrape.
    expect(Number(/^collab_http_open_connections (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
  });
});

describe('/metrics with METRICS_PUBLIC=true', () => {
  it('answers without a token', async () => {
    const server = await startTestServer({ env: { METRICS_PUBLIC: 'true' } });
    try {
      const response = await fetch(`${server.url}/metrics`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('collab_dependency_ready');
    } finally {
      await server.stop();
    }
  });
});
