import { gradientJpeg, imageFacts, makePdf, sampleDocument } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { converterDetails, untilPoolIdle } from './converter-pool-support.js';
import { bodyBytes, detailOf, storeFile, upload } from './preview-test-support.js';

/**
 * The preview limits of the configuration reach the services: each is set low through its
 * environment variable and exceeded over HTTP. (The defaults are tested in image-bad-input.)
 */
describe('image and PDF limits set through the environment', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        PREVIEW_MAX_INPUT_PIXELS: String(200 * 150),
        PREVIEW_MAX_OUTPUT_SIDE: '120',
        PREVIEW_MAX_RENDER_PIXELS: '10000',
      },
    });
  });
  afterAll(() => server.stop());

  it('PREVIEW_MAX_INPUT_PIXELS: an image one row past it is refused with 400 before decoding', async () => {
    const fits = await upload(`${server.url}/preview/image/80x80/thumbnail/`, await gradientJpeg(200, 150));
    expect(fits.status).toBe(200);
    const tooBig = await upload(`${server.url}/preview/image/80x80/thumbnail/`, await gradientJpeg(200, 151));
    expect(tooBig.status).toBe(400);
    expect(await detailOf(tooBig)).toMatch(/at most 30000 pixels but received 200x151/);
  });

  it('PREVIEW_MAX_OUTPUT_SIDE: an area with a side past it is refused with 400', async () => {
    const photo = await gradientJpeg(150, 150);
    const fits = await upload(`${server.url}/preview/image/120x120/thumbnail/`, photo);
    expect(await imageFacts(await bodyBytes(fits))).toMatchObject({ width: 120, height: 120 });
    const tooBig = await upload(`${server.url}/preview/image/121x100/thumbnail/`, photo);
    expect(tooBig.status).toBe(400);
    expect(await detailOf(tooBig)).toMatch(/at most 120 pixels but received 121x100/);
  });

  it("PREVIEW_MAX_RENDER_PIXELS: a PDF page is rendered no larger than it (area 0x0 shows the render's size)", async () => {
    const response = await upload(`${server.url}/preview/pdf/0x0/thumbnail/`, await makePdf(1));
    expect(response.status).toBe(200);
    // An A4 page is 595x842 at 72 DPI; mupdf may round each side of the scaled page up by a pixel.
    const { width, height } = await imageFacts(await bodyBytes(response));
    expect(width * height).toBeLessThanOrEqual(10_000 * 1.03);
    expect(width * height).toBeGreaterThan(9_000);
    expect(Math.abs(width / height - 595 / 842)).toBeLessThan(0.02);
  });
});

describe('DOCUMENT_CACHE_MAX_BYTES=0 and PREVIEW_CACHE_MAX_BYTES=0 turn the caches off', () => {
  const ref = { id: '1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b', version: 1, serviceType: 'files' } as const;
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        DOCUMENT_CONVERTER: 'libreoffice',
        LIBREOFFICE_INSTANCES: '1',
        DOCUMENT_CACHE_MAX_BYTES: '0',
        PREVIEW_CACHE_MAX_BYTES: '0',
      },
    });
    await storeFile(server.config.storage.directory, ref, await sampleDocument('text.docx'));
  });
  afterAll(() => server.stop());

  it('converts a stored document again for every request and keeps nothing', async () => {
    const url = `${server.url}/preview/document/${ref.id}/${ref.version}/?service_type=files&first_page=1&last_page=1`;
    for (let request = 0; request < 2; request += 1) expect((await fetch(url)).status).toBe(200);
    expect(await converterDetails(server)).toMatchObject({ conversions: 2, cache: { entries: 0 } });
  });
});

describe('LIBREOFFICE_MAX_QUEUED and LIBREOFFICE_RESTART_AFTER', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        DOCUMENT_CONVERTER: 'libreoffice',
        LIBREOFFICE_INSTANCES: '1',
        LIBREOFFICE_MAX_QUEUED: '0',
        LIBREOFFICE_RESTART_AFTER: '1',
      },
    });
  });
  afterAll(() => server.stop());

  it('answers 503 with Retry-After past a queue of 0, and restarts the instance after each conversion', async () => {
    // Different documents: the same bytes twice would share one conversion.
    const documents = await Promise.all(['text.docx', 'text.odt'].map((name) => sampleDocument(name)));
    await untilPoolIdle(server, 0);
    const responses = await Promise.all(
      documents.map((document) => upload(`${server.url}/preview/document/`, document)),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 503]);
    const refused = responses.find((response) => response.status === 503);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await untilPoolIdle(server, 1);
    expect(await converterDetails(server)).toMatchObject({ restarts: 1, conversions: 1 });
    const another = await sampleDocument('presentation.odp');
    expect((await upload(`${server.url}/preview/document/`, another)).status).toBe(200);
  });
});
