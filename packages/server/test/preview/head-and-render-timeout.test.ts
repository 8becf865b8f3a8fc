import {
  costlySvg,
  gradientJpeg,
  imageFacts,
  makePdf,
  quadrantImage,
  sampleDocument,
} from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthDependency, startTestServer, type TestServer } from '../support/test-server.js';
import { bodyBytes, detailOf, storeFile, upload } from './preview-test-support.js';

// One render slot, no queue and a 1-second render limit. The costly SVG (fractal noise, a few hundred
// bytes) needs several seconds at its full 4000x1000 size, so a GET of it holds the only slot until
// libvips stops it; a thumbnail of it is cheap (librsvg draws it small).

const id = '6e2f9a1b-3c4d-4e5f-8a6b-7c8d9e0f1a2b';
const photo = { id, version: 1, serviceType: 'files' } as const;
const slow = { id, version: 2, serviceType: 'files' } as const;
const pdf = { id, version: 3, serviceType: 'files' } as const;
const docx = { id, version: 4, serviceType: 'files' } as const;
const lockedDoc = { id, version: 5, serviceType: 'files' } as const;
const png = { id, version: 6, serviceType: 'files' } as const;

describe('stored-file HEAD and the render time limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        PREVIEW_RENDER_TIMEOUT_SECONDS: '1',
        PREVIEW_MAX_CONCURRENT_RENDERS: '1',
        PREVIEW_MAX_QUEUED_RENDERS: '0',
      },
    });
    const directory = server.config.storage.directory;
    await storeFile(directory, photo, await gradientJpeg(640, 480));
    await storeFile(directory, slow, costlySvg(4000, 1000));
    await storeFile(directory, pdf, await makePdf(2));
    await storeFile(directory, docx, await sampleDocument('text.docx'));
    await storeFile(directory, lockedDoc, await sampleDocument('protected-text.doc'));
    await storeFile(directory, png, await quadrantImage(300, 200, 'png'));
  });
  afterAll(() => server.stop());

  const image = (version: number, rest: string) =>
    `${server.url}/preview/image/${id}/${version}/${rest}${rest.includes('?') ? '&' : '?'}service_type=files`;

  async function activeRenders(): Promise<number> {
    return (await healthDependency<{ activeRenders: number }>(server.url, 'image-renderer')).details
      .activeRenders;
  }

  it('PREVIEW_RENDER_TIMEOUT_SECONDS: a render past it is a 400 without Retry-After, and the next one is served', async () => {
    const refused = await upload(`${server.url}/preview/image/0x0/`, costlySvg(4000, 1000));
    const refusal = await detailOf(refused);
    // The detail rides along with each assertion so a failure says what the server answered.
    expect(refused.status, refusal).toBe(400);
    expect(refused.headers.get('retry-after'), refusal).toBeNull();
    expect(refusal).toMatch(/^expected the image to render within the limit of 1 s/);
    expect(await activeRenders(), refusal).toBe(0);
    const next = await upload(`${server.url}/preview/image/200x150/`, await gradientJpeg(640, 480));
    expect(next.status, next.status === 200 ? '' : await detailOf(next)).toBe(200);
    expect(await imageFacts(await bodyBytes(next))).toMatchObject({
      format: 'jpeg',
      width: 200,
      height: 150,
    });
  });

  it('HEAD answers from the stored file while the only render slot is taken, with the ETag of the GET', async () => {
    const busy = fetch(image(2, '0x0/'));
    for (let attempt = 0; attempt < 200 && (await activeRenders()) === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await activeRenders()).toBe(1);
    const head = await fetch(image(1, '100x100/thumbnail/'), { method: 'HEAD' });
    const refusedGet = await fetch(image(1, '100x100/thumbnail/'));
    expect(head.status).toBe(200);
    expect(refusedGet.status).toBe(503);
    expect((await busy).status).toBe(400);
    expect(head.headers.get('content-type')).toBe('image/jpeg');
    expect(head.headers.get('cache-control')).toBe('private, max-age=86400, immutable');
    expect(head.headers.get('content-length')).toBeNull();
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const get = await fetch(image(1, '100x100/thumbnail/'));
    expect(get.status).toBe(200);
    expect(head.headers.get('etag')).toMatch(/^"[\w-]{32}"$/);
    expect(get.headers.get('etag')).toBe(head.headers.get('etag'));
  });

  it('HEAD of the costly image answers 200 where its GET is stopped: it never renders', async () => {
    const head = await fetch(image(2, '0x0/'), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('image/png');
    expect((await fetch(image(2, '0x0/'))).status).toBe(400);
  });

  it("HEAD names the GET's Content-Type, answers 304 for its ETag and the GET's errors", async () => {
    const source = await fetch(image(6, '120x80/'), { method: 'HEAD' });
    expect(source.headers.get('content-type')).toBe('image/png');
    const asked = await fetch(image(6, '120x80/?output_format=jpeg'), { method: 'HEAD' });
    expect(asked.headers.get('content-type')).toBe('image/jpeg');
    const etag = source.headers.get('etag') ?? '';
    const cached = await fetch(image(6, '120x80/'), { method: 'HEAD', headers: { 'If-None-Match': etag } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(etag);
    expect((await fetch(image(9, '120x80/'), { method: 'HEAD' })).status).toBe(404);
    expect((await fetch(image(1, '120x80/?output_format=gif'), { method: 'HEAD' })).status).toBe(400);
    expect((await fetch(image(1, '99999x80/'), { method: 'HEAD' })).status).toBe(400);
    expect((await fetch(image(1, '12x8y/'), { method: 'HEAD' })).status).toBe(422);
  });

  it('HEAD of stored PDFs and documents reads them but converts nothing (no converter runs here)', async () => {
    const base = `${server.url}/preview`;
    const query = '?service_type=files';
    const pdfHead = await fetch(`${base}/pdf/${id}/3/${query}`, { method: 'HEAD' });
    expect(pdfHead.status).toBe(200);
    expect(pdfHead.headers.get('content-type')).toBe('application/pdf');
    const pdfGet = await fetch(`${base}/pdf/${id}/3/${query}`);
    expect(pdfGet.headers.get('etag')).toBe(pdfHead.headers.get('etag'));
    const thumbnail = await fetch(`${base}/pdf/${id}/3/80x80/thumbnail/${query}&output_format=png`, {
      method: 'HEAD',
    });
    expect(thumbnail.headers.get('content-type')).toBe('image/png');
    expect((await fetch(`${base}/pdf/${id}/8/${query}`, { method: 'HEAD' })).status).toBe(404);
    // DOCUMENT_CONVERTER is none in tests: a GET is 503, the HEAD only recognises the document.
    expect((await fetch(`${base}/document/${id}/4/${query}`)).status).toBe(503);
    const documentHead = await fetch(`${base}/document/${id}/4/${query}`, { method: 'HEAD' });
    expect(documentHead.status).toBe(200);
    expect(documentHead.headers.get('content-type')).toBe('application/pdf');
    const locked = await fetch(`${base}/document/${id}/5/80x80/thumbnail/${query}`, { method: 'HEAD' });
    expect(locked.status).toBe(400);
  });
});
