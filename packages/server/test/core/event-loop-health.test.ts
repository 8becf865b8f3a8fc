import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerFeature } from '../../src/feature.js';
import { healthDependency, startTestServer, type TestServer } from '../support/test-server.js';

interface EventLoopDetails {
  delayMilliseconds: { p50: number; p99: number; max: number };
}

/** A route that holds the event loop for 60 ms of busy work: a request that freezes the server. */
function blockingFeature(): ServerFeature {
  const router = Router();
  router.post('/block', (_request, response) => {
    const until = performance.now() + 60;
    while (performance.now() < until) {
      // busy: nothing else runs on the loop meanwhile
    }
    response.status(204).end();
  });
  return { name: 'blocking', basePath: '/test', router };
}

describe('GET /health/ event-loop entry', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ features: async () => [blockingFeature()] });
  });
  afterAll(() => server.stop());

  it('reports the delay p50, p99 and max in milliseconds with one decimal, as an optional dependency', async () => {
    const entry = await healthDependency<EventLoopDetails>(server.url, 'event-loop');
    expect(entry).toMatchObject({ name: 'event-loop', required: false, live: true, ready: true });
    const { p50, p99, max } = entry.details.delayMilliseconds;
    for (const value of [p50, p99, max]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(Math.round(value * 10) / 10).toBe(value);
    }
    expect(p50).toBeLessThanOrEqual(p99);
    expect(p99).toBeLessThanOrEqual(max);
  });

  it('shows a request that held the loop for 60 ms in max, and stays ready', async () => {
    expect((await fetch(`${server.url}/test/block`, { method: 'POST' })).status).toBe(204);
    const entry = await healthDependency<EventLoopDetails>(server.url, 'event-loop');
    // The sampling timer came due during the 60 ms and ran once the request let go: 50 ms late or more.
    expect(entry.details.delayMilliseconds.max).toBeGreaterThanOrEqual(40);
    expect(entry.ready).toBe(true);
    expect((await fetch(`${server.url}/health/ready/`)).status).toBe(200);
  });
});
