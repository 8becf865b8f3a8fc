import {
  encryptPdf,
  imageFacts,
  isNear,
  makePdf,
  pdfPageTexts,
  pixelAt,
} from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { bodyBytes, detailOf, storeFile, upload } from './preview-test-support.js';

const ref = { id: '0b7e8a52-95a8-4d3c-9f65-5a2b0c1d2e3f', version: 2, serviceType: 'files' } as const;

describe('PDF routes', () => {
  let server: TestServer;
  let sevenPages: Uint8Array;

  beforeAll(async () => {
    server = await startTestServer({ env: { PREVIEW_MAX_PDF_PAGES: '4' } });
    sevenPages = await makePdf(7);
    await storeFile(server.config.storage.directory, ref, sevenPages);
  });
  afterAll(() => server.stop());

  const previewUrl = (query = '') => `${server.url}/preview/pdf/${query}`;
  const storedUrl = (query: string) =>
    `${server.url}/preview/pdf/${ref.id}/${ref.version}/?service_type=files${query}`;

  it('POST /preview/pdf/ returns the original bytes unchanged for the whole document', async () => {
    const response = await upload(previewUrl(), sevenPages, { fileName: 'seven.pdf' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.compare(await bodyBytes(response), Buffer.from(sevenPages))).toBe(0);
  });

  it('POST /preview/pdf/ selects pages; last_page 0 is the end, past the end is clamped', async () => {
    const middle = await upload(previewUrl('?first_page=2&last_page=4'), sevenPages);
    expect(await pdfPageTexts(await bodyBytes(middle))).toEqual(['Page 2', 'Page 3', 'Page 4']);
    const tail = await upload(previewUrl('?first_page=6&last_page=0'), sevenPages);
    expect(await pdfPageTexts(await bodyBytes(tail))).toEqual(['Page 6', 'Page 7']);
    const clamped = await upload(previewUrl('?first_page=7&last_page=70'), sevenPages);
    expect(await pdfPageTexts(await bodyBytes(clamped))).toEqual(['Page 7']);
  });

  it('answers 400 for a first_page past the end, after last_page or below 1, saying so', async () => {
    const pastEnd = await upload(previewUrl('?first_page=8'), sevenPages);
    expect(pastEnd.status).toBe(400);
    expect(await detailOf(pastEnd)).toContain('the document has 7 pages');
    const reversed = await upload(previewUrl('?first_page=5&last_page=3'), sevenPages);
    expect(reversed.status).toBe(400);
    expect(await detailOf(reversed)).toContain('`first_page` (5) to be at most `last_page` (3)');
    expect((await upload(previewUrl('?first_page=0'), sevenPages)).status).toBe(400);
  });

  it('answers 422 for page numbers that are not whole numbers', async () => {
    const response = await upload(previewUrl('?first_page=two'), sevenPages);
    expect(response.status).toBe(422);
    expect(await detailOf(response)).toContain('expected first_page to be a whole number but received "two"');
  });

  it('answers 400 for a selection above PREVIEW_MAX_PDF_PAGES', async () => {
    const response = await upload(previewUrl('?first_page=2'), sevenPages);
    expect(response.status).toBe(400);
    expect(await detailOf(response)).toContain('at most 4 pages');
  });

  it('answers 400 for empty, corrupt and password-protected PDFs', async () => {
    const empty = await upload(previewUrl(), new Uint8Array(0));
    expect([empty.status, await detailOf(empty)]).toEqual([400, 'expected a PDF file but received 0 bytes']);
    const corrupt = await upload(previewUrl('?first_page=2'), Buffer.from('%PDF-1.7 nothing else here'));
    expect(corrupt.status).toBe(400);
    const locked = await encryptPdf(sevenPages, { userPassword: 'user', ownerPassword: 'owner' });
    const protectedResponse = await upload(previewUrl(), locked);
    expect(protectedResponse.status).toBe(400);
    expect(await detailOf(protectedResponse)).toContain('protected by a password');
  });

  it('POST /preview/pdf/{area}/thumbnail/ renders the first page as a jpeg of the area', async () => {
    const response = await upload(`${server.url}/preview/pdf/120x90/thumbnail/`, sevenPages);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    const image = await bodyBytes(response);
    expect(await imageFacts(image)).toMatchObject({ format: 'jpeg', width: 120, height: 90 });
    expect(isNear(await pixelAt(image, 118, 88), [255, 255, 255, 255], 20)).toBe(true);
  });

  it('answers 400 for gif output and 422 for a malformed area on PDF thumbnails', async () => {
    const gif = await upload(`${server.url}/preview/pdf/100x100/thumbnail/?output_format=gif`, sevenPages);
    expect(gif.status).toBe(400);
    expect((await upload(`${server.url}/preview/pdf/100/thumbnail/`, sevenPages)).status).toBe(422);
  });

  it('GET /preview/pdf/{id}/{version}/ serves stored PDFs with an ETag and answers 304', async () => {
    const response = await fetch(storedUrl('&first_page=3&last_page=3'));
    expect(response.status).toBe(200);
    expect(await pdfPageTexts(await bodyBytes(response))).toEqual(['Page 3']);
    const etag = response.headers.get('etag') ?? '';
    expect(response.headers.get('cache-control')).toContain('max-age');
    const again = await fetch(storedUrl('&first_page=3&last_page=3'), { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const other = await fetch(storedUrl('&first_page=2&last_page=3'));
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  it('GET stored PDF thumbnails, 404 for a missing file and 422 without service_type', async () => {
    const thumbnail = await fetch(
      `${server.url}/preview/pdf/${ref.id}/${ref.version}/100x100/thumbnail/?service_type=files`,
    );
    expect(thumbnail.status).toBe(200);
    expect(await imageFacts(await bodyBytes(thumbnail))).toMatchObject({ width: 100, height: 100 });
    expect((await fetch(`${server.url}/preview/pdf/${ref.id}/9/?service_type=files`)).status).toBe(404);
    expect((await fetch(`${server.url}/preview/pdf/${ref.id}/${ref.version}/`)).status).toBe(422);
  });

  it('describes the PDF routes in /openapi.json', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/preview/pdf/',
        '/preview/pdf/{id}/{version}/',
        '/preview/pdf/{area}/thumbnail/',
        '/preview/pdf/{id}/{version}/{area}/thumbnail/',
        '/preview/document/',
      ]),
    );
    expect(Object.keys(document.paths)).not.toContain('/cool/convert-to/{format}');
  });
});
