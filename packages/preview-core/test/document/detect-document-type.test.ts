import { describe, expect, it } from 'vitest';
import { detectDocumentType } from '../../src/document/detect-document-type.js';
import { PreviewError } from '../../src/errors.js';
import {
  DOCX_CONTENT_TYPES,
  docxZipBomb,
  makeCompoundFile,
  makeZip,
} from '../../src/testing/container-samples.js';
import { makePdf } from '../../src/testing/pdf-samples.js';
import { SAMPLE_DOCUMENTS, sampleDocument } from '../../src/testing/sample-documents.js';

const LIMITS = { maxEntries: 10_000, maxUncompressedBytes: 512 * 1024 * 1024, maxCompressionRatio: 200 };

async function failure(promise: Promise<unknown>): Promise<PreviewError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PreviewError) return error;
    throw error;
  }
  throw new Error('expected a PreviewError');
}

describe('detectDocumentType recognises documents by content', () => {
  for (const sample of SAMPLE_DOCUMENTS) {
    it(`recognises ${sample.name} (made by LibreOffice) as ${sample.type}`, async () => {
      expect(await detectDocumentType(await sampleDocument(sample.name), LIMITS)).toBe(sample.type);
    });
  }

  it('ignores names: a pptx is a pptx whatever it is called', async () => {
    const bytes = await sampleDocument('presentation.pptx');
    expect(await detectDocumentType(bytes, LIMITS)).toBe('pptx');
  });

  it('refuses empty input, random bytes and a PDF with UNREADABLE_INPUT naming what came', async () => {
    expect((await failure(detectDocumentType(new Uint8Array(0), LIMITS))).message).toContain(
      'received 0 bytes',
    );
    const random = await failure(detectDocumentType(Buffer.from('hello, this is plain text'), LIMITS));
    expect(random.code).toBe('UNREADABLE_INPUT');
    expect(random.message).toContain('expected a doc, docx, odt, xls, xlsx, ods, ppt, pptx or odp document');
    const pdf = await failure(detectDocumentType(await makePdf(1), LIMITS));
    expect(pdf.message).toContain('a PDF');
  });

  it('refuses a zip that is not an office document', async () => {
    const error = await failure(detectDocumentType(makeZip([{ name: 'readme.txt', data: 'hello' }]), LIMITS));
    expect(error.code).toBe('UNREADABLE_INPUT');
    expect(error.message).toContain('neither Office Open XML nor OpenDocument');
  });

  it('refuses other OpenDocument types and OOXML packages without a main part', async () => {
    const drawing = makeZip([
      { name: 'mimetype', data: 'application/vnd.oasis.opendocument.graphics', method: 'store' },
    ]);
    expect((await failure(detectDocumentType(drawing, LIMITS))).message).toContain('opendocument.graphics');
    const empty = makeZip([{ name: '[Content_Types].xml', data: '<Types/>' }]);
    expect((await failure(detectDocumentType(empty, LIMITS))).code).toBe('UNREADABLE_INPUT');
  });

  it('refuses a truncated zip as UNREADABLE_INPUT', async () => {
    const docx = await sampleDocument('text.docx');
    const error = await failure(detectDocumentType(docx.subarray(0, docx.byteLength - 40), LIMITS));
    expect(error.code).toBe('UNREADABLE_INPUT');
  });

  it('tells doc, xls and ppt apart by their top-level stream names', async () => {
    expect(await detectDocumentType(makeCompoundFile(['WordDocument', '1Table']), LIMITS)).toBe('doc');
    expect(await detectDocumentType(makeCompoundFile(['Workbook']), LIMITS)).toBe('xls');
    expect(await detectDocumentType(makeCompoundFile(['Current User', 'PowerPoint Document']), LIMITS)).toBe(
      'ppt',
    );
    const other = await failure(detectDocumentType(makeCompoundFile(['Contents']), LIMITS));
    expect(other.message).toContain('not a Word, Excel or PowerPoint document');
  });

  it('answers PASSWORD_PROTECTED for encrypted OOXML and encrypted OpenDocument files', async () => {
    const ooxml = await failure(
      detectDocumentType(makeCompoundFile(['EncryptionInfo', 'EncryptedPackage']), LIMITS),
    );
    expect(ooxml.code).toBe('PASSWORD_PROTECTED');
    const odf = makeZip([
      { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', method: 'store' },
      {
        name: 'META-INF/manifest.xml',
        data: '<manifest><file-entry><encryption-data/></file-entry></manifest>',
      },
    ]);
    expect((await failure(detectDocumentType(odf, LIMITS))).code).toBe('PASSWORD_PROTECTED');
  });
});

describe('detectDocumentType refuses zip bombs within its limits', () => {
  it('refuses a small zip bomb named .docx (1 GiB of zeros in about 1 MB) by its ratio, inflating nothing', async () => {
    const bomb = docxZipBomb(1024);
    expect(bomb.byteLength).toBeLessThan(2 * 1024 * 1024);
    const error = await failure(detectDocumentType(bomb, LIMITS));
    expect(error.code).toBe('ARCHIVE_LIMIT_EXCEEDED');
    expect(error.message).toMatch(/expands \d+ times/);
  });

  it('refuses a bomb that lies about its sizes when the entry inflates past what it declared', async () => {
    const liar = docxZipBomb(64, true);
    const error = await failure(detectDocumentType(liar, LIMITS));
    expect(error.code).toBe('ARCHIVE_LIMIT_EXCEEDED');
    expect(error.message).toContain('beyond its declared 1000 bytes');
  });

  it('refuses more declared bytes than maxUncompressedBytes', async () => {
    const big = makeZip([
      { name: '[Content_Types].xml', data: DOCX_CONTENT_TYPES },
      { name: 'word/document.xml', data: 'x', declaredSize: 600 * 1024 * 1024 },
    ]);
    const error = await failure(
      detectDocumentType(big, { ...LIMITS, maxCompressionRatio: Number.MAX_VALUE }),
    );
    expect(error.code).toBe('ARCHIVE_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ maxUncompressedBytes: LIMITS.maxUncompressedBytes });
  });

  it('refuses more entries than maxEntries', async () => {
    const docx = await sampleDocument('text.docx');
    const error = await failure(detectDocumentType(docx, { ...LIMITS, maxEntries: 3 }));
    expect(error.code).toBe('ARCHIVE_LIMIT_EXCEEDED');
    expect(error.message).toContain('more than the limit of 3');
  });
});
