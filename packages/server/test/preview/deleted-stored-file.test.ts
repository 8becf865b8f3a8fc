import { rm } from 'node:fs/promises';
import path from 'node:path';
import { normaliseStoredFileRef, type StoredFileRef } from '@collab-suite/preview-core';
import {
  quadrantImage,
  type StorageServiceDouble,
  startStorageServiceDouble,
} from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthDependency, startTestServer, type TestServer } from '../support/test-server.js';
import { detailOf, storeFile } from './preview-test-support.js';

// A render kept in the result cache is served only while the storage still has the file: the storage
// is asked cheaply (a stat, an HTTP HEAD) first. PREVIEW_STORED_EXISTENCE_TTL_MS=0 so that every GET
// asks and no test waits for an answer to age (the reuse itself is unit-tested in preview-core).

const image = { id: '2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d', version: 5, serviceType: 'files' } as const;
const thumbnailOf = (ref: StoredFileRef) =>
  `/preview/image/${ref.id}/${ref.version}/64x64/thumbnail/?service_type=${ref.serviceType}`;

const cacheHits = async (server: TestServer) =>
  (await healthDependency<{ hits: number }>(server.url, 'preview-cache')).details.hits;

describe('a deleted stored file is 404 even when its render is kept (files on disk)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { PREVIEW_STORED_EXISTENCE_TTL_MS: '0' } });
    await storeFile(server.config.storage.directory, image, await quadrantImage(120, 80, 'png'));
  });
  afterAll(() => server.stop());

  it('answers GET and HEAD 404 once the file is removed, though the render is in the cache', async () => {
    const url = `${server.url}${thumbnailOf(image)}`;
    expect((await fetch(url)).status).toBe(200);
    const hitsBefore = await cacheHits(server);
    expect((await fetch(url)).status).toBe(200);
    expect(await cacheHits(server)).toBe(hitsBefore + 1);

    const { serviceType, id, version } = normaliseStoredFileRef(image);
    await rm(path.join(server.config.storage.directory, serviceType, id, String(version)));
    const gone = await fetch(url);
    expect(gone.status).toBe(404);
    expect(await detailOf(gone)).toContain('was not found in the storage');
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(404);
  });
});

describe('a deleted stored file is 404 even when its render is kept (STORAGE_URL)', () => {
  let storage: StorageServiceDouble;
  let server: TestServer;
  beforeAll(async () => {
    storage = await startStorageServiceDouble();
    storage.put(image, await quadrantImage(120, 80, 'png'));
    server = await startTestServer({
      env: { STORAGE_URL: storage.baseUrl, PREVIEW_STORED_EXISTENCE_TTL_MS: '0' },
    });
  });
  afterAll(async () => {
    await server.stop();
    await storage.close();
  });

  it('asks the storage with HEAD before a kept render and answers 404 once it is deleted', async () => {
    const url = `${server.url}${thumbnailOf(image)}`;
    expect((await fetch(url)).status).toBe(200);
    const methods: string[] = [];
    storage.behave((request) => {
      methods.push(request.method ?? '');
      return false;
    });
    expect((await fetch(url)).status).toBe(200);
    // The kept render was served after one HEAD, without downloading the file again.
    expect(methods).toEqual(['HEAD']);
    storage.delete(image);
    expect((await fetch(url)).status).toBe(404);
  });
});
