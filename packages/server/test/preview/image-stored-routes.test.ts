import {
  imageFacts,
  isNear,
  pixelAt,
  QUADRANT_COLOURS,
  quadrantImage,
} from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { bodyBytes, detailOf, storeFile } from './preview-test-support.js';

const id = '3d9c1f7e-2b4a-4c5d-8e6f-7a8b9c0d1e2f';

describe('GET /preview/image/{id}/{version}/{area}/ and .../thumbnail/ (files on disk)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    const directory = server.config.storage.directory;
    await storeFile(
      directory,
      { id, version: 1, serviceType: 'files' },
      await quadrantImage(400, 200, 'png'),
    );
    await storeFile(
      directory,
      { id, version: 2, serviceType: 'files' },
      await quadrantImage(300, 300, 'jpeg'),
    );
    await storeFile(
      directory,
      { id, version: 0, serviceType: 'chats' },
      await quadrantImage(200, 200, 'png'),
    );
  });
  afterAll(() => server.stop());

  const stored = (path: string, query: string) => `${server.url}/preview/image/${path}${query}`;

  it('answers a thumbnail of the stored file with ETag and Cache-Control', async () => {
    const response = await fetch(stored(`${id}/1/100x100/thumbnail/`, '?service_type=files'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    expect(response.headers.get('etag')).toMatch(/^"[\w-]{32}"$/);
    expect(response.headers.get('cache-control')).toBe('private, max-age=86400, immutable');
    const image = await bodyBytes(response);
    expect(await imageFacts(image)).toMatchObject({ format: 'jpeg', width: 100, height: 100 });
    expect(isNear(await pixelAt(image, 5, 5), QUADRANT_COLOURS.topLeft)).toBe(true);
  });

  it('answers a preview in the source format (png with transparent borders)', async () => {
    const response = await fetch(stored(`${id}/1/200x200/`, '?service_type=files'));
    expect(response.headers.get('content-type')).toBe('image/png');
    const image = await bodyBytes(response);
    expect(await pixelAt(image, 100, 10)).toEqual([0, 0, 0, 0]);
  });

  it('honours every preview option on stored files', async () => {
    const response = await fetch(
      stored(`${id}/2/200x100/`, '?service_type=files&crop=true&quality=high&output_format=png'),
    );
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(await imageFacts(await bodyBytes(response))).toMatchObject({
      width: 200,
      height: 100,
      hasAlpha: false,
    });
  });

  it('reads files of the chats service from their own folder', async () => {
    const response = await fetch(
      stored(`${id}/0/80x80/thumbnail/`, '?service_type=chats&shape=rounded&output_format=png'),
    );
    expect(response.status).toBe(200);
    expect((await pixelAt(await bodyBytes(response), 0, 0))[3]).toBe(0);
    expect((await fetch(stored(`${id}/0/80x80/thumbnail/`, '?service_type=files'))).status).toBe(404);
  });

  it('gives the same ETag for the same id, version and options, and another for other options', async () => {
    const etag = async (path: string, query: string) =>
      (await fetch(stored(path, query))).headers.get('etag');
    const first = await etag(`${id}/1/100x100/thumbnail/`, '?service_type=files');
    expect(
      await etag(`${id}/1/100x100/thumbnail/`, '?service_type=files&quality=medium&shape=rectangular'),
    ).toBe(first);
    expect(await etag(`${id.toUpperCase()}/1/100x100/thumbnail/`, '?service_type=files')).toBe(first);
    expect(await etag(`${id}/1/100x100/thumbnail/`, '?service_type=files&quality=high')).not.toBe(first);
    expect(await etag(`${id}/2/100x100/thumbnail/`, '?service_type=files')).not.toBe(first);
    expect(await etag(`${id}/1/100x80/thumbnail/`, '?service_type=files')).not.toBe(first);
    expect(await etag(`${id}/1/100x100/`, '?service_type=files')).not.toBe(first);
  });

  it('answers 304 without a body when If-None-Match names the ETag', async () => {
    const url = stored(`${id}/1/100x100/thumbnail/`, '?service_type=files');
    const etag = (await fetch(url)).headers.get('etag') ?? '';
    const again = await fetch(url, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    expect((await fetch(url, { headers: { 'If-None-Match': `"other", W/${etag}` } })).status).toBe(304);
    expect((await fetch(url, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  it('answers 404 with a detail for a file that is not stored', async () => {
    const response = await fetch(stored(`${id}/9/100x100/`, '?service_type=files'));
    expect(response.status).toBe(404);
    expect(await detailOf(response)).toContain('not found');
  });

  it.each([
    ['an id that is not a UUID', 'not-a-uuid/1/100x100/', '?service_type=files', ['path', 'id']],
    ['a negative version', `${id}/-1/100x100/`, '?service_type=files', ['path', 'version']],
    ['a malformed area', `${id}/1/100/`, '?service_type=files', ['path', 'area']],
    ['a missing service_type', `${id}/1/100x100/`, '', ['query', 'service_type']],
    [
      'an unknown service_type',
      `${id}/1/100x100/thumbnail/`,
      '?service_type=mail',
      ['query', 'service_type'],
    ],
    [
      'an unknown quality',
      `${id}/1/100x100/thumbnail/`,
      '?service_type=files&quality=best',
      ['query', 'quality'],
    ],
  ])('answers 422 for %s', async (_label, path, query, loc) => {
    const response = await fetch(stored(path, query));
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(body.detail).toContainEqual(
      expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) }),
    );
  });

  it('answers 400 for gif output of a stored png', async () => {
    const response = await fetch(stored(`${id}/1/100x100/`, '?service_type=files&output_format=gif'));
    expect(response.status).toBe(400);
  });
});
