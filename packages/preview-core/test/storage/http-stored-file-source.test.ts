import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpStoredFileSource, downloadUrl } from '../../src/index.js';
import { type StorageServiceDouble, startStorageServiceDouble } from '../../src/testing/index.js';

const ref = { id: '5F0C8A526D0B4C439A572F5B0A7C1E11', version: 3, serviceType: 'files' } as const;
const normalisedId = '5f0c8a52-6d0b-4c43-9a57-2f5b0a7c1e11';

describe('HTTP stored-file source against a real storage server', () => {
  let storage: StorageServiceDouble;
  beforeAll(async () => {
    storage = await startStorageServiceDouble();
    storage.put(ref, new Uint8Array([7, 8, 9]));
  });
  beforeEach(() => {
    storage.behave(undefined);
    storage.requests.length = 0;
  });
  afterAll(() => storage.close());

  it('asks GET /download with node (lower-case UUID), version and type', async () => {
    const source = createHttpStoredFileSource({ baseUrl: storage.baseUrl });
    expect([...(await source.read(ref))]).toEqual([7, 8, 9]);
    expect(storage.requests).toEqual([`/download?node=${normalisedId}&version=3&type=files`]);
  });

  it('keeps a base path of the storage URL', () => {
    expect(
      downloadUrl('http://storage:20000/api', { id: normalisedId, version: 0, serviceType: 'chats' }).href,
    ).toBe(`http://storage:20000/api/download?node=${normalisedId}&version=0&type=chats`);
  });

  it('maps 404 to NOT_FOUND', async () => {
    const source = createHttpStoredFileSource({ baseUrl: storage.baseUrl });
    await expect(source.read({ ...ref, version: 99 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('maps 500 to STORAGE_UNAVAILABLE naming the status', async () => {
    storage.behave((_request, response) => {
      response.writeHead(500).end('boom');
      return true;
    });
    const source = createHttpStoredFileSource({ baseUrl: storage.baseUrl });
    await expect(source.read(ref)).rejects.toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
      message: expect.stringContaining('HTTP 500'),
    });
  });

  it('does not follow redirects', async () => {
    storage.behave((_request, response) => {
      response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
      return true;
    });
    const source = createHttpStoredFileSource({ baseUrl: storage.baseUrl });
    await expect(source.read(ref)).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    expect(storage.requests).toHaveLength(1);
  });

  it('gives up with STORAGE_UNAVAILABLE when headers never come', async () => {
    storage.behave(() => true);
    const source = createHttpStoredFileSource({ baseUrl: storage.baseUrl, timeoutMs: 200 });
    await expect(source.read(ref)).rejects.toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
      message: expect.stringContaining('within 200 ms'),
    });
  });

  it('gives up with STORAGE_UNAVAILABLE when the body trickles past the time limit', async () => {
    storage.behave((_request, response) => {
      response.writeHead(200, { 'content-length': 1000 });
      response.write(Buffer.alloc(10));
      const timer = setInterval(() => response.write(Buffer.alloc(1)), 50);
      response.on('close', () => clearInterval(timer));
      return true;
    });
    const source = createHttpStoredFileSource({ baseUrl: storage.baseUrl, timeoutMs: 300 });
    await expect(source.read(ref)).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
  });

  it('refuses a declared oversized body with INPUT_TOO_LARGE without reading it', async () => {
    storage.behave((_request, response) => {
      response.writeHead(200, { 'content-length': 5000 });
      response.end(Buffer.alloc(5000));
      return true;
    });
    const source = createHttpStoredFileSource({ baseUrl: storage.baseUrl, maxBytes: 1000 });
    await expect(source.read(ref)).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE' });
  });

  it('stops reading an undeclared body once it passes maxBytes', async () => {
    let written = 0;
    storage.behave((_request, response) => {
      response.writeHead(200);
      const timer = setInterval(() => {
        written += 64 * 1024;
        response.write(Buffer.alloc(64 * 1024));
      }, 5);
      response.on('close', () => clearInterval(timer));
      return true;
    });
    const source = createHttpStoredFileSource({
      baseUrl: storage.baseUrl,
      maxBytes: 256 * 1024,
      timeoutMs: 5000,
    });
    await expect(source.read(ref)).rejects.toMatchObject({
      code: 'INPUT_TOO_LARGE',
      message: expect.stringContaining('more than 262144'),
    });
    const writtenAtRefusal = written;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(written - writtenAtRefusal).toBeLessThan(1024 * 1024);
  });

  it('maps a refused connection to STORAGE_UNAVAILABLE', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    await new Promise((resolve) => probe.close(resolve));
    const source = createHttpStoredFileSource({ baseUrl: `http://127.0.0.1:${port}` });
    await expect(source.read(ref)).rejects.toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
      message: expect.stringContaining('connection failed'),
    });
  });

  it('rejects with the caller reason when the caller aborts mid-download', async () => {
    storage.behave(() => true);
    const controller = new AbortController();
    const source = createHttpStoredFileSource({ baseUrl: storage.baseUrl, timeoutMs: 5000 });
    const reading = source.read(ref, controller.signal);
    const reason = new Error('client left');
    setTimeout(() => controller.abort(reason), 50);
    await expect(reading).rejects.toBe(reason);
  });
});
