import { gzipSync } from 'node:zlib';
import express, { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErrorHandler } from '../../src/http/error-handler.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

describe('JSON bodies the parser refuses', () => {
  let server: TestServer;
  beforeAll(async () => {
    const router = Router();
    router.post('/echo', express.json({ limit: '1kb' }), (request, response) => {
      response.json(request.body);
    });
    router.use(createErrorHandler());
    server = await startTestServer({ features: async () => [{ name: 'echo', basePath: '/', router }] });
  });
  afterAll(() => server.stop());

  const post = (body: Uint8Array | string, headers: Record<string, string>) =>
    fetch(`${server.url}/echo`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });

  it('answers 400 to a gzip body that does not inflate, and keeps serving', async () => {
    const response = await post(Buffer.from('definitely not gzip'), { 'content-encoding': 'gzip' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toBeTypeOf('string');
    const valid = await post(gzipSync('{"still":"serving"}'), { 'content-encoding': 'gzip' });
    expect(await valid.json()).toEqual({ still: 'serving' });
  });

  it('answers 400 to malformed JSON and 413 to a body past the limit', async () => {
    const malformed = await post('{"a":', {});
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ detail: 'the request body is not valid JSON' });
    const large = await post(JSON.stringify({ text: 'x'.repeat(4096) }), {});
    expect(large.status).toBe(413);
  });

  it('answers 415 to an encoding it does not know', async () => {
    const response = await post('{}', { 'content-encoding': 'compress-magic' });
    expect(response.status).toBe(415);
  });
});
