import { beforeAll, describe, expect, it } from 'vitest';
import { openPdf } from '../../src/pdf/open-pdf.js';
import { createPdfPreviewer } from '../../src/pdf/pdf-previewer.js';
import { renderPage } from '../../src/pdf/render-page.js';
import { encryptPdf, makePdf, pdfPageTexts } from '../../src/testing/pdf-samples.js';
import { previewFailure } from '../../src/testing/preview-failure.js';

describe('PDF previews (pdf-lib + mupdf)', () => {
  const previewer = createPdfPreviewer();
  let tenPages: Uint8Array;

  beforeAll(async () => {
    tenPages = await makePdf(10);
  });

  it('returns the original bytes unchanged for the whole document', async () => {
    const preview = await previewer.preview(tenPages, {});
    expect(preview.data).toBe(tenPages);
    expect(preview).toMatchObject({ firstPage: 1, lastPage: 10, pageCount: 10 });
    expect((await previewer.preview(tenPages, { firstPage: 1, lastPage: 50 })).data).toBe(tenPages);
  });

  it('copies pages 3 to 5 into a new PDF', async () => {
    const preview = await previewer.preview(tenPages, { firstPage: 3, lastPage: 5 });
    expect(await pdfPageTexts(preview.data)).toEqual(['Page 3', 'Page 4', 'Page 5']);
  });

  it('reads last_page 0 as the end and clamps a last_page past the end', async () => {
    expect(
      await pdfPageTexts((await previewer.preview(tenPages, { firstPage: 9, lastPage: 0 })).data),
    ).toEqual(['Page 9', 'Page 10']);
    const clamped = await previewer.preview(tenPages, { firstPage: 10, lastPage: 400 });
    expect(await pdfPageTexts(clamped.data)).toEqual(['Page 10']);
    expect(clamped.lastPage).toBe(10);
  });

  it('answers INVALID_OPTION for a first_page past the end or after last_page', async () => {
    const pastEnd = await previewFailure(previewer.preview(tenPages, { firstPage: 11 }));
    expect(pastEnd.code).toBe('INVALID_OPTION');
    expect(pastEnd.message).toMatch(/the document has 10 pages/);
    expect((await previewFailure(previewer.preview(tenPages, { firstPage: 4, lastPage: 2 }))).code).toBe(
      'INVALID_OPTION',
    );
  });

  it('answers UNREADABLE_INPUT for an empty file, random bytes and a truncated PDF', async () => {
    const empty = await previewFailure(previewer.preview(new Uint8Array(0)));
    expect(empty.code).toBe('UNREADABLE_INPUT');
    expect(empty.message).toContain('received 0 bytes');
    const random = await previewFailure(
      previewer.preview(Buffer.from('this is not a PDF at all, just text')),
    );
    expect(random.code).toBe('UNREADABLE_INPUT');
    const truncated = await previewFailure(previewer.preview(tenPages.subarray(0, 300)));
    expect(truncated.code).toBe('UNREADABLE_INPUT');
    expect(
      (await previewFailure(previewer.renderFirstPage(tenPages.subarray(0, 300), { width: 64, height: 64 })))
        .code,
    ).toBe('UNREADABLE_INPUT');
  });

  it('answers PASSWORD_PROTECTED for a PDF that needs a password to open', async () => {
    const locked = await encryptPdf(tenPages, { userPassword: 'secret', ownerPassword: 'owner' });
    const error = await previewFailure(previewer.preview(locked, { firstPage: 2, lastPage: 2 }));
    expect(error.code).toBe('PASSWORD_PROTECTED');
    expect(error.message).toContain('password');
    expect((await previewFailure(previewer.renderFirstPage(locked, { width: 64, height: 64 }))).code).toBe(
      'PASSWORD_PROTECTED',
    );
  });

  it('copies pages of a PDF encrypted with an owner password only (readable without one)', async () => {
    const restricted = await encryptPdf(tenPages, { ownerPassword: 'owner' });
    const preview = await previewer.preview(restricted, { firstPage: 2, lastPage: 3 });
    expect(await pdfPageTexts(preview.data)).toEqual(['Page 2', 'Page 3']);
  });

  it('refuses a PDF above maxInputBytes with INPUT_TOO_LARGE', async () => {
    const small = createPdfPreviewer({ maxInputBytes: tenPages.byteLength - 1 });
    const error = await previewFailure(small.preview(tenPages));
    expect(error.code).toBe('INPUT_TOO_LARGE');
    expect(error.details).toMatchObject({ maxInputBytes: tenPages.byteLength - 1 });
    expect((await previewFailure(small.renderFirstPage(tenPages, { width: 64, height: 64 }))).code).toBe(
      'INPUT_TOO_LARGE',
    );
  });

  it('refuses a partial selection above maxPagesPerSelection with TOO_MANY_PAGES, but not the whole file', async () => {
    const limited = createPdfPreviewer({ maxPagesPerSelection: 4 });
    expect((await previewFailure(limited.preview(tenPages, { firstPage: 2, lastPage: 6 }))).code).toBe(
      'TOO_MANY_PAGES',
    );
    expect((await limited.preview(tenPages, { firstPage: 2, lastPage: 5 })).lastPage).toBe(5);
    expect((await limited.preview(tenPages)).data).toBe(tenPages);
  });
});

describe('PDF first-page rendering (mupdf raw pixels)', () => {
  it('renders the top of the first page white with dark text, just what a 256x256 thumbnail keeps', async () => {
    const pdf = await makePdf(3);
    const pixels = await createPdfPreviewer().renderFirstPage(pdf, { width: 256, height: 256 });
    expect(pixels.channels).toBe(3);
    expect(pixels.width).toBe(256);
    expect(pixels.height).toBe(256);
    expect(pixels.data.byteLength).toBe(pixels.width * pixels.height * 3);
    const corner = Array.from(pixels.data.subarray(0, 3));
    expect(corner).toEqual([255, 255, 255]);
    const darkest = Math.min(...pixels.data.subarray(0, pixels.width * 3 * 40));
    expect(darkest).toBeLessThan(100);
  });

  it('draws the kept region with exactly the pixels of the whole page render', async () => {
    for (const [width, height] of [
      [595, 842],
      [842, 595],
    ] as const) {
      const opened = await openPdf(await makePdf(1, [width, height]));
      try {
        const area = { width: 256, height: 256 };
        const whole = renderPage(opened, 0, area, 16_000_000);
        const region = renderPage(opened, 0, area, 16_000_000, { thumbnailOnly: true });
        expect(region.width * region.height).toBeLessThan(whole.width * whole.height);
        const left = Math.floor(whole.width / 2) - Math.floor(region.width / 2);
        for (let row = 0; row < region.height; row += 1) {
          const start = (row * whole.width + left) * 3;
          const expected = whole.data.subarray(start, start + region.width * 3);
          const actual = region.data.subarray(row * region.width * 3, (row + 1) * region.width * 3);
          expect(Buffer.compare(actual, expected), `row ${row} of a ${width}x${height} page`).toBe(0);
        }
      } finally {
        opened.close();
      }
    }
  });

  it('scales a render down to maxRenderPixels', async () => {
    const tall = await makePdf(1, [10, 14_000]);
    const limited = createPdfPreviewer({ maxRenderPixels: 200_000 });
    const pixels = await limited.renderFirstPage(tall, { width: 1000, height: 1000 });
    expect(pixels.width * pixels.height).toBeLessThanOrEqual(200_000 * 1.01);
    const unlimited = await createPdfPreviewer().renderFirstPage(tall, { width: 1000, height: 1000 });
    expect(unlimited.width * unlimited.height).toBeGreaterThan(200_000);
  });
});
