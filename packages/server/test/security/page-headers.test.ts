import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatFeature } from '../../src/chat/chat-feature.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { send } from './security-test-support.js';

/** Finding 7 (part): the example pages and /docs were sent without CSP, frame-ancestors or nosniff. */
describe('headers of /examples/* and /docs', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ features: async (context) => [await createChatFeature(context)] });
  });
  afterAll(() => server.stop());

  it.each([
    '/examples/meeting/',
    '/examples/meeting/page.js',
    '/examples/chat/',
    '/examples/chat/config.json',
    '/docs/',
    '/docs/start.js',
  ])('%s carries a CSP that forbids framing, nosniff and a Referrer-Policy', async (path) => {
    const answer = await send(`${server.url}${path}`, 'GET');
    expect(answer.status).toBe(200);
    const policy = String(answer.headers['content-security-policy']);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-eval');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
  });

  it('lets the meeting page connect to its own /events over ws:, and nothing else', async () => {
    const policy = String(
      (await send(`${server.url}/examples/meeting/`, 'GET')).headers['content-security-policy'],
    );
    expect(policy).toContain(`connect-src 'self' ${server.url.replace('http:', 'ws:')};`);
    expect(policy).not.toContain("script-src 'self' 'unsafe-inline'");
  });
});
