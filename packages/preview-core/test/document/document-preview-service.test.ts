import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createConvertedPdfCache } from '../../src/document/converted-pdf-cache.js';
import { createDocumentPreviewService } from '../../src/document/document-preview-service.js';
import { createPdfPreviewService } from '../../src/pdf/pdf-preview-service.js';
import { createPreviewService } from '../../src/preview-service.js';
import { createInMemoryStoredFileSource } from '../../src/storage/in-memory-stored-file-source.js';
import { docxZipBomb } from '../../src/testing/container-samples.js';
import { imageFacts } from '../../src/testing/image-fixtures.js';
import { createInMemoryConverter } from '../../src/testing/in-memory-converter.js';
import { makePdf, pdfPageTexts } from '../../src/testing/pdf-samples.js';
import { sampleDocument } from '../../src/testing/sample-documents.js';

// Domain logic of document previews (recognition, locale, cache, page rules, errors) with the
// in-memory converter; real LibreOffice conversions are tested in libreoffice-*.test.ts.

const ref = { id: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', version: 3, serviceType: 'files' } as const;

function setup(limits = {}) {
  const storedFiles = createInMemoryStoredFileSource();
  const previewService = createPreviewService({ storedFiles });
  const pdfService = createPdfPreviewService({ previewService });
  const converter = createInMemoryConverter();
  const cache = createConvertedPdfCache();
  const service = createDocumentPreviewService({ previewService, pdfService, converter, cache, limits });
  return { storedFiles, converter, cache, service };
}

describe('document previews with the in-memory converter', () => {
  let docx: Uint8Array;

  beforeAll(async () => {
    docx = await sampleDocument('text.docx');
  });

  it('recognises the upload, converts it with the default locale and applies the page range', async () => {
    const { service, converter } = setup();
    const preview = await service.preview(docx, { firstPage: 2, lastPage: 0 });
    expect(preview).toMatchObject({ documentType: 'docx', firstPage: 2, lastPage: 3, pageCount: 3 });
    expect(await pdfPageTexts(preview.data)).toEqual(['docx page 2 en-US', 'docx page 3 en-US']);
    expect(converter.requests[0]).toMatchObject({ type: 'docx', locale: 'en-US' });
  });

  it('passes the locale to the converter', async () => {
    const { service, converter } = setup();
    await service.preview(await sampleDocument('spreadsheet.ods'), { locale: 'de_DE' });
    expect(converter.requests[0]).toMatchObject({ type: 'ods', locale: 'de-DE' });
  });

  it('refuses a malformed locale, unknown content and a zip bomb before converting anything', async () => {
    const { service, converter } = setup();
    await expect(service.preview(docx, { locale: 'de DE' })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
    await expect(service.preview(Buffer.from('plain text'))).rejects.toMatchObject({
      code: 'UNREADABLE_INPUT',
    });
    await expect(service.preview(await makePdf(1))).rejects.toMatchObject({ code: 'UNREADABLE_INPUT' });
    await expect(service.preview(docxZipBomb(1024))).rejects.toMatchObject({
      code: 'ARCHIVE_LIMIT_EXCEEDED',
    });
    expect(converter.requests).toHaveLength(0);
  });

  it('refuses doc and xls files saved with a password with PASSWORD_PROTECTED, converting nothing', async () => {
    const { service, converter } = setup();
    for (const name of ['protected-text.doc', 'protected-spreadsheet.xls']) {
      await expect(service.preview(await sampleDocument(name))).rejects.toMatchObject({
        code: 'PASSWORD_PROTECTED',
        message: expect.stringContaining('protected by a password'),
      });
      await expect(service.thumbnail(await sampleDocument(name), { area: '64x64' })).rejects.toMatchObject({
        code: 'PASSWORD_PROTECTED',
      });
    }
    expect(converter.requests).toHaveLength(0);
  });

  it('refuses a document above maxInputBytes with INPUT_TOO_LARGE', async () => {
    const { service } = setup({ maxInputBytes: docx.byteLength - 1 });
    await expect(service.preview(docx)).rejects.toMatchObject({
      code: 'INPUT_TOO_LARGE',
      details: { maxInputBytes: docx.byteLength - 1 },
    });
  });

  it('applies the zip limits it is given', async () => {
    const { service } = setup({ maxZipEntries: 2 });
    await expect(service.preview(docx)).rejects.toMatchObject({ code: 'ARCHIVE_LIMIT_EXCEEDED' });
  });

  it('converts page 1 alone for a thumbnail, a named range alone, and the whole document once for the rest', async () => {
    const { service, converter, storedFiles, cache } = setup();
    storedFiles.put(ref, docx);
    storedFiles.put({ ...ref, version: 4 }, docx);
    const thumbnail = await service.thumbnail({ storedFile: ref }, { area: '120x120' });
    expect(await imageFacts(thumbnail.data)).toMatchObject({ format: 'jpeg', width: 120, height: 120 });
    expect(converter.requests[0]?.pages).toEqual({ first: 1, last: 1 });
    const [one, rest] = await Promise.all([
      service.preview({ storedFile: ref }, { firstPage: 2, lastPage: 2 }),
      service.preview({ storedFile: ref }, { firstPage: 3 }),
    ]);
    expect(one).toMatchObject({ firstPage: 2, lastPage: 2, pageCount: 3, documentType: 'docx' });
    expect(await pdfPageTexts(one.data)).toEqual(['docx page 2 en-US']);
    expect(await pdfPageTexts(rest.data)).toEqual(['docx page 3 en-US']);
    // The two previews run at once: their conversions may reach the converter in either order.
    expect(converter.requests[0]?.pages).toEqual({ first: 1, last: 1 });
    expect(converter.requests.slice(1).map((request) => request.pages)).toHaveLength(2);
    expect(converter.requests.slice(1).map((request) => request.pages)).toEqual(
      expect.arrayContaining([{ first: 2, last: 2 }, undefined]),
    );
    // Once the whole document is converted, thumbnails and ranges use it.
    await service.thumbnail({ storedFile: ref }, { area: '64x64' });
    await service.preview({ storedFile: ref }, { firstPage: 1, lastPage: 2 });
    expect(converter.requests).toHaveLength(3);
    await service.preview({ storedFile: ref }, { locale: 'fr-FR' });
    await service.preview({ storedFile: { ...ref, version: 4 } });
    expect(converter.requests).toHaveLength(5);
    expect(cache.stats()).toMatchObject({ entries: 5 });
  });

  it('clamps a range past the end and refuses a first page past the end, as for PDFs', async () => {
    const { service, converter } = setup();
    const clamped = await service.preview(docx, { firstPage: 2, lastPage: 9 });
    expect(clamped).toMatchObject({ firstPage: 2, lastPage: 3, pageCount: 3 });
    expect(await pdfPageTexts(clamped.data)).toEqual(['docx page 2 en-US', 'docx page 3 en-US']);
    await expect(service.preview(docx, { firstPage: 7, lastPage: 8 })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringContaining('the document has 3 pages'),
    });
    await expect(service.preview(docx, { firstPage: 3, lastPage: 2 })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
    expect(converter.requests).toHaveLength(2);
  });

  it('converts only the asked pages of a spreadsheet, with the page rules of text documents', async () => {
    const { service, converter } = setup();
    const spreadsheet = await sampleDocument('spreadsheet.ods');
    const preview = await service.preview(spreadsheet, { firstPage: 2, lastPage: 9 });
    expect(preview).toMatchObject({ firstPage: 2, lastPage: 3, pageCount: 3, documentType: 'ods' });
    expect(await pdfPageTexts(preview.data)).toEqual(['ods page 2 en-US', 'ods page 3 en-US']);
    expect(converter.requests[0]?.pages).toEqual({ first: 2, last: 9 });
    await expect(service.preview(spreadsheet, { firstPage: 4, lastPage: 4 })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringContaining('the document has 3 pages'),
    });
  });

  it('converts the same uploaded bytes once, by content hash and locale', async () => {
    const { service, converter } = setup();
    await service.preview(docx);
    await service.preview(Uint8Array.from(docx));
    expect(converter.requests).toHaveLength(1);
    await service.preview(docx, { locale: 'de-DE' });
    await service.preview(await sampleDocument('text.odt'));
    expect(converter.requests).toHaveLength(3);
  });

  it('converts uploads every time without a cache', async () => {
    const storedFiles = createInMemoryStoredFileSource();
    const previewService = createPreviewService({ storedFiles });
    const pdfService = createPdfPreviewService({ previewService });
    const converter = createInMemoryConverter();
    const service = createDocumentPreviewService({ previewService, pdfService, converter });
    await service.preview(docx);
    await service.preview(docx);
    expect(converter.requests).toHaveLength(2);
  });

  for (const code of ['CONVERTER_CRASHED', 'CONVERSION_TIMEOUT'] as const) {
    it(`refuses a document after its second ${code} with CONVERSION_FAILED and converts it no third time`, async () => {
      const { service, converter } = setup();
      converter.failWith(code);
      await expect(service.preview(docx)).rejects.toMatchObject({ code });
      await expect(service.preview(docx)).rejects.toMatchObject({
        code: 'CONVERSION_FAILED',
        details: { reason: code, attempts: 2 },
      });
      converter.failWith(undefined);
      await expect(service.preview(docx)).rejects.toMatchObject({ code: 'CONVERSION_FAILED' });
      expect(converter.requests).toHaveLength(2);
      expect(service.status().failures).toEqual({ remembered: 1, blamed: 1, refused: 1 });
      // Other documents are not affected.
      expect((await service.preview(await sampleDocument('text.odt'))).pageCount).toBe(3);
    });
  }

  it('does not blame a document for a busy or missing converter', async () => {
    const { service, converter } = setup();
    converter.failWith('BUSY');
    await expect(service.preview(docx)).rejects.toMatchObject({ code: 'BUSY' });
    await expect(service.preview(docx)).rejects.toMatchObject({ code: 'BUSY' });
    await expect(service.preview(docx)).rejects.toMatchObject({ code: 'BUSY' });
    converter.failWith(undefined);
    expect((await service.preview(docx)).pageCount).toBe(3);
    expect(service.status().failures.remembered).toBe(0);
  });

  it('forgets a blamed document after rememberSeconds', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const storedFiles = createInMemoryStoredFileSource();
      const previewService = createPreviewService({ storedFiles });
      const pdfService = createPdfPreviewService({ previewService });
      const converter = createInMemoryConverter();
      const service = createDocumentPreviewService({
        previewService,
        pdfService,
        converter,
        failures: { attempts: 1, rememberSeconds: 60 },
      });
      converter.failWith('CONVERTER_CRASHED');
      await expect(service.preview(docx)).rejects.toMatchObject({ code: 'CONVERSION_FAILED' });
      converter.failWith(undefined);
      await expect(service.preview(docx)).rejects.toMatchObject({ code: 'CONVERSION_FAILED' });
      vi.advanceTimersByTime(61_000);
      expect((await service.preview(docx)).pageCount).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('passes converter failures on and does not cache them', async () => {
    const { service, converter, storedFiles } = setup();
    storedFiles.put(ref, docx);
    converter.failWith('CONVERTER_UNAVAILABLE');
    await expect(service.preview({ storedFile: ref })).rejects.toMatchObject({
      code: 'CONVERTER_UNAVAILABLE',
      details: { retryAfterSeconds: 1 },
    });
    expect(service.status().converter.available).toBe(false);
    converter.failWith(undefined);
    expect((await service.preview({ storedFile: ref })).pageCount).toBe(3);
    expect(service.status()).toMatchObject({ converter: { available: true }, cache: { entries: 1 } });
  });

  it('applies the PDF page rules to the converted document', async () => {
    const { service } = setup();
    await expect(service.preview(docx, { firstPage: 4 })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringContaining('the document has 3 pages'),
    });
  });

  it('refuses gif thumbnails and malformed areas before converting', async () => {
    const { service, converter } = setup();
    await expect(service.thumbnail(docx, { area: '100x100', outputFormat: 'gif' })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
    await expect(service.thumbnail(docx, { area: 'abc' })).rejects.toMatchObject({ code: 'INVALID_AREA' });
    expect(converter.requests).toHaveLength(0);
  });

  it('answers NOT_FOUND for a missing stored document', async () => {
    const { service } = setup();
    await expect(service.preview({ storedFile: ref })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
