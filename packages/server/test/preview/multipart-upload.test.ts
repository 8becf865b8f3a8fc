import { request } from 'node:http';
import { imageFacts, isNear, pixelAt, solidImage } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUploadBufferPool } from '../../src/preview/upload-buffer-pool.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { detailOf } from './preview-test-support.js';

const solidPng = (colour: readonly [number, number, number]) => solidImage(120, 120, colour);

function multipart(
  boundary: string,
  parts: { name: string; fileName?: string; data: Buffer | string }[],
): Buffer {
  const pieces = parts.flatMap((part) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${part.fileName ? `; filename="${part.fileName}"` : ''}\r\n\r\n`,
    ),
    Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data),
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]);
}

/** Sends `body` raw, optionally chunked (no Content-Length) or announcing more bytes than sent. */
function send(
  url: string,
  body: Buffer,
  headers: Record<string, string | number>,
  mode: 'length' | 'chunked' | 'cut' = 'length',
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const allHeaders = {
      ...headers,
      ...(mode === 'chunked' ? {} : { 'content-length': mode === 'cut' ? body.length + 500 : body.length }),
    };
    const outgoing = request(url, { method: 'POST', headers: allHeaders }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    outgoing.on('error', mode === 'cut' ? () => undefined : reject);
    if (mode === 'chunked') {
      outgoing.write(body.subarray(0, 100));
      outgoing.end(body.subarray(100));
    } else if (mode === 'cut') {
      outgoing.write(body);
      setTimeout(() => outgoing.destroy(), 100);
      outgoing.on('close', () => resolve({ status: 0, body: Buffer.alloc(0) }));
    } else outgoing.end(body);
  });
}

describe('multipart uploads to the image routes', () => {
  let server: TestServer;
  let red: Buffer;
  beforeAll(async () => {
    server = await startTestServer();
    red = await solidPng([255, 0, 0]);
  });
  afterAll(() => server.stop());

  const url = () => `${server.url}/preview/image/80x80/?output_format=png`;

  it('finds the file field after other fields, with a quoted boundary', async () => {
    const body = multipart('a b:c', [
      { name: 'note', data: 'hello\r\n--not-the-boundary' },
      { name: 'file', fileName: 'red.png', data: red },
      { name: 'after', data: 'tail' },
    ]);
    const answer = await send(url(), body, { 'content-type': 'multipart/form-data; boundary="a b:c"' });
    expect(answer.status).toBe(200);
    expect(await pixelAt(answer.body, 40, 40)).toEqual([255, 0, 0, 255]);
  });

  it('accepts a chunked body without Content-Length', async () => {
    const body = multipart('xyz', [{ name: 'file', fileName: 'red.png', data: red }]);
    const answer = await send(
      url(),
      body,
      { 'content-type': 'multipart/form-data; boundary=xyz' },
      'chunked',
    );
    expect(answer.status).toBe(200);
    expect(await imageFacts(answer.body)).toMatchObject({ width: 80, height: 80 });
  });

  it('ignores a text field named file and answers 422 without a file part', async () => {
    const body = multipart('xyz', [{ name: 'file', data: 'just text' }]);
    const answer = await send(url(), body, { 'content-type': 'multipart/form-data; boundary=xyz' });
    expect(answer.status).toBe(422);
  });

  it('answers 400 for a body whose framing is broken', async () => {
    const body = Buffer.from(
      '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nno closing delimiter',
    );
    const answer = await send(url(), body, { 'content-type': 'multipart/form-data; boundary=xyz' });
    expect(answer.status).toBe(400);
    expect(answer.body.toString()).toContain('malformed');
  });

  it('answers 422 for a multipart content type without a boundary', async () => {
    const response = await fetch(url(), {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'multipart/form-data' },
    });
    expect(response.status).toBe(422);
    expect(await detailOf(response)).toContain('no boundary');
  });

  it('survives a client that stops sending mid-body, and keeps serving', async () => {
    const body = multipart('xyz', [{ name: 'file', fileName: 'red.png', data: red }]);
    await send(url(), body, { 'content-type': 'multipart/form-data; boundary=xyz' }, 'cut');
    const answer = await send(url(), body, { 'content-type': 'multipart/form-data; boundary=xyz' });
    expect(answer.status).toBe(200);
  });

  it('keeps concurrent uploads apart while reusing buffers', async () => {
    const colours = [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
      [255, 255, 0],
      [0, 255, 255],
      [255, 0, 255],
    ] as const;
    const images = await Promise.all(colours.map((colour) => solidPng(colour)));
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(
        images.map((image) =>
          send(url(), multipart('xyz', [{ name: 'file', fileName: 'c.png', data: image }]), {
            'content-type': 'multipart/form-data; boundary=xyz',
          }),
        ),
      );
      for (const [index, answer] of answers.entries()) {
        const colour = colours[index] ?? [0, 0, 0];
        expect(isNear(await pixelAt(answer.body, 40, 40), [...colour, 255])).toBe(true);
      }
    }
  });
});

describe('createUploadBufferPool', () => {
  it('lends exact-size views and reuses a released buffer of the same size class', () => {
    const pool = createUploadBufferPool();
    const first = pool.take(1500_000);
    expect(first.length).toBe(1500_000);
    const backing = first.buffer;
    pool.release(first);
    const second = pool.take(1200_000);
    expect(second.buffer).toBe(backing);
    expect(pool.take(1200_000).buffer).not.toBe(backing);
  });

  it('does not keep buffers above maxPooledBytes nor past maxIdleBytes', () => {
    const pool = createUploadBufferPool({ maxPooledBytes: 2 * 1024 * 1024, maxIdleBytes: 2 * 1024 * 1024 });
    const large = pool.take(3 * 1024 * 1024);
    pool.release(large);
    expect(pool.take(3 * 1024 * 1024).buffer).not.toBe(large.buffer);
    const a = pool.take(2 * 1024 * 1024);
    const b = pool.take(2 * 1024 * 1024);
    pool.release(a);
    pool.release(b);
    expect(pool.take(2 * 1024 * 1024).buffer).toBe(a.buffer);
    expect(pool.take(2 * 1024 * 1024).buffer).not.toBe(b.buffer);
  });

  it('ignores buffers it did not lend and double releases', () => {
    const pool = createUploadBufferPool();
    pool.release(Buffer.alloc(10));
    const lent = pool.take(10);
    pool.release(lent);
    pool.release(lent);
    expect(pool.take(10).buffer).toBe(lent.buffer);
    expect(pool.take(10).buffer).not.toBe(lent.buffer);
  });
});
