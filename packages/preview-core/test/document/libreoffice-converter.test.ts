import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectDocumentType } from '../../src/document/detect-document-type.js';
import {
  createLibreOfficeConverter,
  type LibreOfficeConverter,
} from '../../src/document/libreoffice/libreoffice-converter.js';
import { DOCX_CONTENT_TYPES, makeZip } from '../../src/testing/container-samples.js';
import { damageCompoundFile } from '../../src/testing/damaged-compound-file.js';
import { pdfPageTexts } from '../../src/testing/pdf-samples.js';
import { previewFailure } from '../../src/testing/preview-failure.js';
import { SAMPLE_DOCUMENTS, sampleDocument } from '../../src/testing/sample-documents.js';
import { describeDocumentConverterConformance } from '../../src/testing/vitest/document-converter-conformance.js';
import { makeWord6Document, pagedParagraphs } from '../../src/testing/word6-document.js';

// Real LibreOffice (Debian's soffice and python3-uno), one warm instance per pool: the machine has 2 cores.

describeDocumentConverterConformance('LibreOffice pool', {
  create: () => createLibreOfficeConverter({ instances: 1 }),
  sample: async () => ({
    data: await sampleDocument('text.docx'),
    type: 'docx',
    firstPageText: 'Alpha page one',
  }),
  damaged: () =>
    makeZip([
      { name: '[Content_Types].xml', data: DOCX_CONTENT_TYPES },
      { name: 'word/document.xml', data: '<<< this is not XML' },
    ]),
});

const ZIP_LIMITS = { maxEntries: 10_000, maxUncompressedBytes: 512 * 1024 * 1024, maxCompressionRatio: 200 };

const FIRST_AND_LAST: Readonly<Record<string, readonly [string, string]>> = {
  text: ['Alpha page one', 'Charlie page three'],
  spreadsheet: ['Sheet North', 'Sheet East'],
  presentation: ['Slide one Delta', 'Slide four Golf'],
};

describe('LibreOffice pool converting real documents', () => {
  let converter: LibreOfficeConverter;

  beforeAll(async () => {
    converter = createLibreOfficeConverter({ instances: 1 });
    await converter.whenStarted();
  });
  afterAll(() => converter.close());

  for (const sample of SAMPLE_DOCUMENTS) {
    it(`converts ${sample.name} to a PDF of ${sample.pages} pages with the right first and last page`, async () => {
      const pdf = await converter.convert({ data: await sampleDocument(sample.name), type: sample.type });
      const pages = await pdfPageTexts(pdf);
      expect(pages).toHaveLength(sample.pages);
      const [first, last] = FIRST_AND_LAST[sample.name.split('.')[0] ?? ''] ?? ['', ''];
      expect(pages[0]).toContain(first);
      expect(pages.at(-1)).toContain(last);
    });
  }

  it('formats numbers with the requested locale', async () => {
    const data = await sampleDocument('spreadsheet.xlsx');
    const german = await pdfPageTexts(await converter.convert({ data, type: 'xlsx', locale: 'de-DE' }));
    const american = await pdfPageTexts(await converter.convert({ data, type: 'xlsx', locale: 'en-US' }));
    expect(german[0]).toContain('1.234,50');
    expect(american[0]).toContain('1,234.50');
  });

  it('keeps the instance after a document it cannot open: no restart, the next conversion works', async () => {
    const damaged = (await sampleDocument('text.odt')).slice();
    damaged.fill(0x41, 200, 4000);
    const error = await converter.convert({ data: damaged, type: 'odt' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CONVERSION_FAILED' });
    expect((error as Error).message).toContain('could not open the odt document');
    // LibreOffice's own text names the job file of this host: kept as the cause, out of the message.
    expect((error as Error).message).not.toMatch(/job-|\//);
    expect(((error as Error).cause as Error).message).toMatch(/\w/);
    const pdf = await converter.convert({ data: await sampleDocument('text.docx'), type: 'docx' });
    expect((await pdfPageTexts(pdf))[1]).toContain('Bravo page two');
    expect(converter.status().restarts).toBe(0);
  });

  it('reports instances, busy, restarts and conversions', () => {
    const status = converter.status();
    expect(status).toMatchObject({
      name: 'libreoffice',
      available: true,
      instances: 1,
      busy: 0,
      restarts: 0,
    });
    expect(status.conversions).toBeGreaterThanOrEqual(SAMPLE_DOCUMENTS.length + 2);
    expect(status.pool[0]).toMatchObject({ id: 0, state: 'idle' });
    expect(status.pool[0]?.pid).toBeGreaterThan(0);
  });

  describe('exporting page ranges', () => {
    for (const sample of SAMPLE_DOCUMENTS) {
      it(`exports only page 1 of ${sample.name} when asked for it`, async () => {
        const data = await sampleDocument(sample.name);
        const pages = await pdfPageTexts(
          await converter.convert({ data, type: sample.type, pages: { first: 1, last: 1 } }),
        );
        expect(pages).toHaveLength(1);
        expect(pages[0]).toContain((FIRST_AND_LAST[sample.name.split('.')[0] ?? ''] ?? [''])[0]);
      });
    }

    it('exports pages 2 to 3 of a text document', async () => {
      const data = await sampleDocument('text.docx');
      const pages = await pdfPageTexts(
        await converter.convert({ data, type: 'docx', pages: { first: 2, last: 3 } }),
      );
      expect(pages).toHaveLength(2);
      expect(pages[1]).toContain('Charlie page three');
    });
  });

  describe('opening what the forced import filter refuses', () => {
    for (const version of ['word6', 'word95'] as const) {
      it(`converts a ${version} .doc (an OLE2 doc the "MS Word 97" filter cannot open) by format detection`, async () => {
        const data = makeWord6Document({ version, paragraphs: pagedParagraphs(3, 5) });
        const pages = await pdfPageTexts(await converter.convert({ data, type: 'doc' }));
        expect(pages).toHaveLength(3);
        expect(pages[0]).toContain('Page 1');
        expect(converter.status().restarts).toBe(0);
      });
    }

    // A damaged spreadsheet of the kind fuzzing corpora hold: `soffice --convert-to pdf` converts it,
    // so the previews must not refuse it before LibreOffice sees it.
    it('converts an xls whose Workbook stream name is in upper case (detected as xls)', async () => {
      const data = damageCompoundFile(await sampleDocument('spreadsheet.xls'), 'stream-name-case');
      const type = await detectDocumentType(data, ZIP_LIMITS);
      expect(type).toBe('xls');
      const pages = await pdfPageTexts(await converter.convert({ data, type }));
      expect(pages).toHaveLength(3);
      expect(pages[0]).toContain('Sheet North');
    });

    it('hands an OLE2 file whose Workbook stream lost its name to LibreOffice, which judges it', async () => {
      const data = damageCompoundFile(await sampleDocument('spreadsheet.xls'), 'stream-renamed');
      // Not refused by the pre-check: the container is sound, only its application is unclear.
      const type = await detectDocumentType(data, ZIP_LIMITS);
      const error = await previewFailure(converter.convert({ data, type }));
      // LibreOffice's own detection was asked (its answer is in the cause) and refused this one.
      expect(error.code).toBe('CONVERSION_FAILED');
      expect(String((error.cause as Error | undefined)?.message)).toContain('detected:');
      expect(converter.status().restarts).toBe(0);
    });
  });

  describe('converting some pages and counting all (convertPages)', () => {
    it('exports pages 2 to 3 of a text document and counts its 3 pages', async () => {
      const data = await sampleDocument('text.docx');
      const converted = await converter.convertPages?.({ data, type: 'docx', pages: { first: 2, last: 9 } });
      expect(converted?.pageCount).toBe(3);
      const pages = await pdfPageTexts(converted?.pdf ?? new Uint8Array());
      expect(pages).toHaveLength(2);
      expect(pages[1]).toContain('Charlie page three');
    });

    it('counts the slides of a presentation and exports only the one asked for', async () => {
      const data = await sampleDocument('presentation.pptx');
      const converted = await converter.convertPages?.({ data, type: 'pptx', pages: { first: 4, last: 4 } });
      expect(converted?.pageCount).toBe(4);
      expect(await pdfPageTexts(converted?.pdf ?? new Uint8Array())).toEqual([
        expect.stringContaining('Slide four Golf'),
      ]);
    });

    it('exports nothing but still counts when the first page is past the end', async () => {
      const data = await sampleDocument('text.odt');
      const converted = await converter.convertPages?.({ data, type: 'odt', pages: { first: 7, last: 7 } });
      expect(converted).toEqual({ pdf: new Uint8Array(0), pageCount: 3 });
    });

    it('counts the printed pages of a spreadsheet (a sheet each) and exports only the asked ones', async () => {
      const data = await sampleDocument('spreadsheet.xlsx');
      const converted = await converter.convertPages?.({ data, type: 'xlsx', pages: { first: 2, last: 9 } });
      expect(converted?.pageCount).toBe(3);
      const pages = await pdfPageTexts(converted?.pdf ?? new Uint8Array());
      expect(pages).toHaveLength(2);
      expect(pages[0]).toContain('Sheet South');
      expect(pages[1]).toContain('Sheet East');
    });

    it('counts a long spreadsheet as its whole export paginates it, and exports the same pages', async () => {
      const data = await sampleDocument('long-sheet.xlsx');
      const whole = await pdfPageTexts(await converter.convert({ data, type: 'xlsx' }));
      expect(whole.length).toBeGreaterThan(150);
      const count = whole.length;
      const last = await converter.convertPages?.({
        data,
        type: 'xlsx',
        pages: { first: count - 1, last: count + 5 },
      });
      expect(last?.pageCount).toBe(count);
      expect(await pdfPageTexts(last?.pdf ?? new Uint8Array())).toEqual(whole.slice(-2));
      const first = await converter.convertPages?.({ data, type: 'xlsx', pages: { first: 1, last: 1 } });
      expect(await pdfPageTexts(first?.pdf ?? new Uint8Array())).toEqual([whole[0]]);
      expect(whole[0]).toContain('Sheet row 1');
      const pastEnd = await converter.convertPages?.({
        data,
        type: 'xlsx',
        pages: { first: count + 1, last: count + 1 },
      });
      expect(pastEnd).toEqual({ pdf: new Uint8Array(0), pageCount: count });
    });
  });
});
