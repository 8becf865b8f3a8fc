import { IMAGE_QUALITIES } from '@collab-suite/preview-core';
import { quadrantImage } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthDependency, startTestServer, type TestServer } from '../support/test-server.js';
import { storeFile } from './preview-test-support.js';

// ETags and result-cache keys hold only the options that change the bytes.

const image = { id: '4d5e6f70-8192-4a3b-8c4d-5e6f708192a3', version: 1, serviceType: 'files' } as const;

const cacheEntries = async (server: TestServer) =>
  (await healthDependency<{ entries: number }>(server.url, 'preview-cache')).details.entries;

describe('the render key of stored previews', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await storeFile(server.config.storage.directory, image, await quadrantImage(160, 120, 'png'));
  });
  afterAll(() => server.stop());

  const stored = (route: string, query: string) =>
    fetch(
      `${server.url}/preview/image/${image.id}/${image.version}/64x64/${route}?service_type=files&${query}`,
    );

  it('makes one cache entry and one ETag for every quality of a png', async () => {
    const before = await cacheEntries(server);
    const etags = new Set<string | null>();
    for (const quality of IMAGE_QUALITIES) {
      const response = await stored('thumbnail/', `output_format=png&quality=${quality}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      await response.arrayBuffer();
      etags.add(response.headers.get('etag'));
    }
    expect(etags.size).toBe(1);
    expect(await cacheEntries(server)).toBe(before + 1);
  });

  it('keeps jpeg qualities apart, and a thumbnail asked as jpeg is the default one', async () => {
    const low = await stored('thumbnail/', 'quality=low');
    const high = await stored('thumbnail/', 'quality=high');
    const lowAsJpeg = await stored('thumbnail/', 'quality=low&output_format=jpeg');
    expect(low.headers.get('etag')).not.toBe(high.headers.get('etag'));
    expect(lowAsJpeg.headers.get('etag')).toBe(low.headers.get('etag'));
    await Promise.all([low, high, lowAsJpeg].map((response) => response.arrayBuffer()));
  });
});
