import {
  gradientJpeg,
  heicSample,
  imageFacts,
  isNear,
  makeAttachmentEncryptedPdf,
  makeMisparentedPdf,
  makeOvercountedPdf,
  pdfPageTexts,
  pixelAt,
  QUADRANT_COLOURS,
  quadrantImage,
} from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { bodyBytes, detailOf, upload } from './preview-test-support.js';

describe('files from the real world that viewers and browsers show get a preview', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  const pdfPreview = (query = '') => `${server.url}/preview/pdf/${query}`;
  const imageThumbnail = (area: string, query = '') =>
    `${server.url}/preview/image/${area}/thumbnail/${query}`;

  it('POST /preview/pdf/ previews and thumbnails a PDF whose encryption covers attachments only', async () => {
    const pdf = await makeAttachmentEncryptedPdf(3, 'secret');
    const pages = await upload(pdfPreview('?first_page=2&last_page=3'), pdf, { fileName: 'attachments.pdf' });
    expect(pages.status).toBe(200);
    expect(await pdfPageTexts(await bodyBytes(pages))).toEqual(['Page 2', 'Page 3']);
    const thumbnail = await upload(`${server.url}/preview/pdf/120x90/thumbnail/`, pdf);
    expect(thumbnail.status).toBe(200);
    expect(await imageFacts(await bodyBytes(thumbnail))).toMatchObject({
      format: 'jpeg',
      width: 120,
      height: 90,
    });
  });

  it('POST /preview/pdf/ copies pages of a PDF pdf-lib cannot copy, with no library message anywhere', async () => {
    const pdf = await makeMisparentedPdf(3, 2);
    const response = await upload(pdfPreview('?first_page=1&last_page=2'), pdf);
    expect(response.status).toBe(200);
    expect(await pdfPageTexts(await bodyBytes(response))).toEqual(['Page 1', 'Page 2']);
  });

  it('POST /preview/pdf/ previews the pages a PDF holds when its page tree claims more', async () => {
    const pdf = await makeOvercountedPdf(3, 5);
    const whole = await upload(pdfPreview(''), pdf);
    expect(whole.status).toBe(200);
    expect(await pdfPageTexts(await bodyBytes(whole))).toEqual(['Page 1', 'Page 2', 'Page 3']);
    const pastTheEnd = await upload(pdfPreview('?first_page=4&last_page=5'), pdf);
    expect(pastTheEnd.status).toBe(400);
    expect(await detailOf(pastTheEnd)).toContain('the document has 3 pages');
  });

  it('POST /preview/pdf/ refuses a damaged PDF in its own words', async () => {
    const response = await upload(
      pdfPreview('?first_page=2'),
      Buffer.from('%PDF-1.7\n1 0 obj << /Kids [ 2 0 R'),
    );
    expect(response.status).toBe(400);
    const detail = await detailOf(response);
    expect(detail).toMatch(/^expected a readable PDF but /);
    expect(detail).not.toMatch(/is not a function|xref|startxref|token|syntax/i);
  });

  it('POST /preview/image/{area}/thumbnail/ answers 200 for a JPEG cut to 60% of its bytes', async () => {
    const photo = await gradientJpeg(640, 480);
    const truncated = photo.subarray(0, Math.floor(photo.length * 0.6));
    const response = await upload(imageThumbnail('160x120', '?output_format=png'), truncated, {
      fileName: 'cut.jpg',
    });
    expect(response.status).toBe(200);
    const image = await bodyBytes(response);
    expect(await imageFacts(image)).toMatchObject({ format: 'png', width: 160, height: 120 });
    expect((await pixelAt(image, 154, 5))[0] - (await pixelAt(image, 5, 5))[0]).toBeGreaterThan(150);
  });

  it.each(['tiff', 'avif'] as const)(
    'POST /preview/image/{area}/thumbnail/ thumbnails a %s image',
    async (format) => {
      const input = await quadrantImage(300, 300, format);
      const response = await upload(imageThumbnail('100x100', '?output_format=png'), input, {
        fileName: `q.${format}`,
      });
      expect(response.status).toBe(200);
      const image = await bodyBytes(response);
      expect(await imageFacts(image)).toMatchObject({ format: 'png', width: 100, height: 100 });
      expect(isNear(await pixelAt(image, 5, 5), QUADRANT_COLOURS.topLeft, 40)).toBe(true);
      expect(isNear(await pixelAt(image, 94, 94), QUADRANT_COLOURS.bottomRight, 40)).toBe(true);
    },
  );

  it('POST /preview/image/{area}/thumbnail/ answers 400 for HEIC, saying the format is unsupported', async () => {
    const response = await upload(imageThumbnail('80x80'), heicSample(640, 480), { fileName: 'photo.heic' });
    expect(response.status).toBe(400);
    expect(await detailOf(response)).toMatch(
      /HEIF image compressed with hevc \(HEIC\), a format this server cannot decode/,
    );
  });
});
