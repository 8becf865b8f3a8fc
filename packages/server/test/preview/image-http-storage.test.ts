import { createServer } from 'node:net';
import {
  imageFacts,
  quadrantImage,
  type StorageServiceDouble,
  startStorageServiceDouble,
} from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchHealth, startTestServer, type TestServer } from '../support/test-server.js';
import { bodyBytes, detailOf } from './preview-test-support.js';

const ref = { id: '7c6b5a49-3827-4161-a5f4-e3d2c1b0a998', version: 4, serviceType: 'files' } as const;

describe('stored files from an HTTP storage service (STORAGE_URL)', () => {
  let storage: StorageServiceDouble;
  let server: TestServer;
  beforeAll(async () => {
    storage = await startStorageServiceDouble();
    storage.put(ref, await quadrantImage(200, 200, 'png'));
    server = await startTestServer({
      // The storage misbehaves for files it served before: no render cache, or it would answer them.
      env: {
        STORAGE_URL: storage.baseUrl,
        STORAGE_TIMEOUT_MS: '300',
        STORAGE_MAX_BYTES: String(64 * 1024),
        PREVIEW_CACHE_MAX_BYTES: '0',
      },
    });
  });
  beforeEach(() => {
    storage.behave(undefined);
    storage.requests.length = 0;
  });
  afterAll(async () => {
    await server.stop();
    await storage.close();
  });

  const thumbnail = (version: number = ref.version) =>
    `${server.url}/preview/image/${ref.id}/${version}/100x100/thumbnail/?service_type=files`;

  it('downloads the file with node, version and type and renders it', async () => {
    const response = await fetch(thumbnail());
    expect(response.status).toBe(200);
    expect(await imageFacts(await bodyBytes(response))).toMatchObject({
      format: 'jpeg',
      width: 100,
      height: 100,
    });
    expect(storage.requests).toEqual([`/download?node=${ref.id}&version=4&type=files`]);
  });

  it('answers 404 when the storage answers 404', async () => {
    const response = await fetch(thumbnail(5));
    expect(response.status).toBe(404);
    expect(await detailOf(response)).toContain('was not found in the storage');
  });

  it('answers 502 when the storage answers 500', async () => {
    storage.behave((_request, response) => {
      response.writeHead(500).end('internal');
      return true;
    });
    const response = await fetch(thumbnail());
    expect(response.status).toBe(502);
    expect(await detailOf(response)).toContain('HTTP 500');
  });

  it('answers 502 when the storage never answers within STORAGE_TIMEOUT_MS', async () => {
    storage.behave(() => true);
    const response = await fetch(thumbnail());
    expect(response.status).toBe(502);
    expect(await detailOf(response)).toContain('within 300 ms');
  });

  it('answers 502 when the body trickles in slower than the time limit', async () => {
    storage.behave((_request, response) => {
      response.writeHead(200, { 'content-length': 4096 });
      const timer = setInterval(() => response.write(Buffer.alloc(16)), 40);
      response.on('close', () => clearInterval(timer));
      return true;
    });
    expect((await fetch(thumbnail())).status).toBe(502);
  });

  it('answers 413 when the stored file is larger than STORAGE_MAX_BYTES', async () => {
    storage.behave((_request, response) => {
      response.writeHead(200);
      response.end(Buffer.alloc(200 * 1024));
      return true;
    });
    const response = await fetch(thumbnail());
    expect(response.status).toBe(413);
    expect(await detailOf(response)).toContain('at most 65536 bytes');
  });

  it('reports the storage on /health/', async () => {
    const body = (await (await fetchHealth(server.url)).json()) as {
      dependencies: { name: string; live: boolean; ready: boolean; required: boolean }[];
    };
    expect(body.dependencies).toContainEqual(
      expect.objectContaining({ name: 'storage', live: true, ready: true, required: false }),
    );
    expect(body.dependencies).toContainEqual(
      expect.objectContaining({ name: 'image-renderer', ready: true }),
    );
  });
});

describe('an HTTP storage service that is down', () => {
  let server: TestServer;
  beforeAll(async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    const port = typeof address === 'object' && address ? address.port : 1;
    await new Promise((resolve) => probe.close(resolve));
    server = await startTestServer({ env: { STORAGE_URL: `http://127.0.0.1:${port}` } });
  });
  afterAll(() => server.stop());

  it('answers 502 for stored files, and uploads keep working', async () => {
    const response = await fetch(`${server.url}/preview/image/${ref.id}/1/100x100/?service_type=chats`);
    expect(response.status).toBe(502);
    expect(await detailOf(response)).toContain('connection failed');
    const form = new FormData();
    form.append('file', new Blob([await quadrantImage(100, 100)]), 'a.png');
    expect((await fetch(`${server.url}/preview/image/80x80/`, { method: 'POST', body: form })).status).toBe(
      200,
    );
  });

  it('reports the storage as not live on /health/ while /health/ready/ stays 200', async () => {
    const body = (await (await fetchHealth(server.url)).json()) as {
      dependencies: { name: string; live: boolean }[];
    };
    expect(body.dependencies).toContainEqual(expect.objectContaining({ name: 'storage', live: false }));
    expect((await fetch(`${server.url}/health/ready/`)).status).toBe(200);
  });
});
