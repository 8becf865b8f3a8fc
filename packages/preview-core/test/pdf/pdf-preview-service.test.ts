import { PDFDocument, rgb } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPdfPreviewService } from '../../src/pdf/pdf-preview-service.js';
import { createPreviewService } from '../../src/preview-service.js';
import { createInMemoryStoredFileSource } from '../../src/storage/in-memory-stored-file-source.js';
import { imageFacts, isNear, pixelAt } from '../../src/testing/image-fixtures.js';
import { makePdf, pdfPageTexts } from '../../src/testing/pdf-samples.js';

/** A 200x400 pt page: a red band across the top 50 pt, a blue band across the bottom 50 pt. */
async function bandedPdf(): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage([200, 400]);
  page.drawRectangle({ x: 0, y: 350, width: 200, height: 50, color: rgb(1, 0, 0) });
  page.drawRectangle({ x: 0, y: 0, width: 200, height: 50, color: rgb(0, 0, 1) });
  return document.save();
}

const ref = { id: '1f0e2d3c-4b5a-4968-8776-655443322110', version: 1, serviceType: 'files' } as const;

describe('PDF preview service (mupdf pixels through the sharp thumbnail pipeline)', () => {
  const storedFiles = createInMemoryStoredFileSource();
  const previewService = createPreviewService({ storedFiles });
  const service = createPdfPreviewService({ previewService });
  let banded: Uint8Array;

  beforeAll(async () => {
    banded = await bandedPdf();
    storedFiles.put(ref, await makePdf(6));
  });

  it('makes a jpeg thumbnail of the first page cropped from the top', async () => {
    const thumbnail = await service.thumbnail(banded, { area: '100x100' });
    expect(await imageFacts(thumbnail.data)).toMatchObject({ format: 'jpeg', width: 100, height: 100 });
    expect(isNear(await pixelAt(thumbnail.data, 50, 5), [255, 0, 0, 255], 40)).toBe(true);
    expect(isNear(await pixelAt(thumbnail.data, 50, 95), [255, 255, 255, 255], 40)).toBe(true);
  });

  it('applies shape and output_format: a rounded png has transparent corners', async () => {
    const thumbnail = await service.thumbnail(banded, {
      area: '96x96',
      shape: 'rounded',
      outputFormat: 'png',
    });
    expect(await imageFacts(thumbnail.data)).toMatchObject({ format: 'png', width: 96, height: 96 });
    expect((await pixelAt(thumbnail.data, 0, 0))[3]).toBe(0);
    expect(await pixelAt(thumbnail.data, 48, 8)).toEqual([255, 0, 0, 255]);
  });

  it('refuses gif output with INVALID_OPTION before rendering', async () => {
    await expect(service.thumbnail(banded, { area: '64x64', outputFormat: 'gif' })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringContaining('jpeg or png for a PDF thumbnail'),
    });
  });

  it('refuses a malformed area with INVALID_AREA', async () => {
    await expect(service.thumbnail(banded, { area: '64' })).rejects.toMatchObject({ code: 'INVALID_AREA' });
  });

  it('previews and thumbnails stored files, and answers NOT_FOUND for a missing one', async () => {
    const preview = await service.preview({ storedFile: ref }, { firstPage: 5 });
    expect(await pdfPageTexts(preview.data)).toEqual(['Page 5', 'Page 6']);
    const thumbnail = await service.thumbnail({ storedFile: ref }, { area: '80x80' });
    expect(thumbnail.format).toBe('jpeg');
    await expect(service.preview({ storedFile: { ...ref, version: 9 } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('answers UNREADABLE_INPUT for a thumbnail of an empty upload', async () => {
    await expect(service.thumbnail(new Uint8Array(0), { area: '64x64' })).rejects.toMatchObject({
      code: 'UNREADABLE_INPUT',
    });
  });
});
