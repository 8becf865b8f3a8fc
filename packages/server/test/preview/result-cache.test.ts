import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { imageFacts, quadrantImage, sampleDocument } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthDependency, startTestServer, type TestServer } from '../support/test-server.js';
import { converterDetails } from './converter-pool-support.js';
import { bodyBytes, storeFile } from './preview-test-support.js';

// The on-disk result cache across a restart, with real LibreOffice: what the first server converted,
// the second answers without converting.

const document = { id: '3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7', version: 2, serviceType: 'files' } as const;
const image = { id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', version: 1, serviceType: 'files' } as const;

interface CacheDetails {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
}

const conversions = async (server: TestServer) => (await converterDetails(server)).conversions;

const cacheDetails = async (server: TestServer) =>
  (await healthDependency<CacheDetails>(server.url, 'preview-cache')).details;

describe('the preview result cache (PREVIEW_CACHE_DIR)', () => {
  let dataDir: string;
  let server: TestServer;
  const documentThumbnail = (area: string) =>
    `/preview/document/${document.id}/${document.version}/${area}/thumbnail/?service_type=files`;
  const imageThumbnail = `/preview/image/${image.id}/${image.version}/64x64/thumbnail/?service_type=files`;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'result-cache-'));
    server = await startTestServer({
      dataDir,
      env: { DOCUMENT_CONVERTER: 'libreoffice', LIBREOFFICE_INSTANCES: '1' },
    });
    await storeFile(server.config.storage.directory, document, await sampleDocument('text.docx'));
    await storeFile(server.config.storage.directory, image, await quadrantImage(300, 200, 'png'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers a stored render again from the cache, with the same bytes', async () => {
    const first = await fetch(`${server.url}${imageThumbnail}`);
    expect(first.status).toBe(200);
    const before = await cacheDetails(server);
    const second = await fetch(`${server.url}${imageThumbnail}`);
    expect(second.status).toBe(200);
    expect(await bodyBytes(second)).toEqual(await bodyBytes(first));
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    const after = await cacheDetails(server);
    expect(after.hits - before.hits).toBe(1);
    expect(after.entries).toBeGreaterThanOrEqual(1);
  });

  it('keeps renders and converted PDFs across a restart', async () => {
    const converted = await fetch(`${server.url}${documentThumbnail('120x120')}`);
    expect(converted.status).toBe(200);
    await server.stop();
    server = await startTestServer({
      dataDir,
      env: { DOCUMENT_CONVERTER: 'libreoffice', LIBREOFFICE_INSTANCES: '1' },
    });

    const again = await fetch(`${server.url}${documentThumbnail('120x120')}`);
    expect(again.status).toBe(200);
    expect(await bodyBytes(again)).toEqual(await bodyBytes(converted));
    // Another size is a new render, of the page-1 PDF kept on disk.
    const otherSize = await fetch(`${server.url}${documentThumbnail('96x96')}`);
    expect(otherSize.status).toBe(200);
    expect(await imageFacts(await bodyBytes(otherSize))).toMatchObject({ width: 96, height: 96 });
    expect(await conversions(server)).toBe(0);
    // The whole document was never converted: that takes a conversion.
    const whole = await fetch(
      `${server.url}/preview/document/${document.id}/${document.version}/?service_type=files`,
    );
    expect(whole.status).toBe(200);
    expect(await conversions(server)).toBe(1);
    expect((await cacheDetails(server)).hits).toBeGreaterThanOrEqual(2);
  });
});
