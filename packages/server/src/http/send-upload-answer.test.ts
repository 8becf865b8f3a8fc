import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendUploadAnswer } from './send-upload-answer.js';

describe('sendUploadAnswer', () => {
  let url = '';
  let close = () => {};
  beforeAll(async () => {
    const backing = Buffer.from('xxxx-the answer-yyyy');
    const app = express();
    app.post('/answer', (_request, response) => {
      sendUploadAnswer(response, backing.subarray(5, 15), 'image/png');
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  it('answers 200 with exactly the bytes of the view, its type and length, not cacheable, no ETag', async () => {
    const response = await fetch(`${url}/answer`, { method: 'POST' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('the answer');
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-length')).toBe('10');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('etag')).toBeNull();
  });
});
