import { solidImage } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { detailOf } from './preview-test-support.js';

describe('PREVIEW_UPLOADS_PER_MINUTE', () => {
  let server: TestServer;
  let png: Uint8Array;
  beforeAll(async () => {
    server = await startTestServer({ env: { PREVIEW_UPLOADS_PER_MINUTE: '3', TRUST_PROXY: 'loopback' } });
    png = await solidImage(8, 8, [200, 30, 30]);
  });
  afterAll(() => server.stop());

  const thumbnail = (clientAddress: string) => {
    const form = new FormData();
    form.append('file', new Blob([png], { type: 'image/png' }), 'a.png');
    return fetch(`${server.url}/preview/image/4x4/thumbnail/`, {
      method: 'POST',
      body: form,
      headers: { 'x-forwarded-for': clientAddress },
    });
  };

  it('refuses a client past its uploads per minute with 429 and Retry-After, and counts clients apart', async () => {
    for (let index = 0; index < 3; index += 1) expect((await thumbnail('203.0.113.5')).status).toBe(200);
    const refused = await thumbnail('203.0.113.5');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await detailOf(refused)).toContain('3 uploads per minute');
    expect((await thumbnail('203.0.113.6')).status).toBe(200);
    // Reads of stored files are not uploads.
    const stored = await fetch(
      `${server.url}/preview/image/00000000-0000-0000-0000-000000000000/1/4x4/?service_type=files`,
      {
        headers: { 'x-forwarded-for': '203.0.113.5' },
      },
    );
    expect(stored.status).not.toBe(429);
  });
});
