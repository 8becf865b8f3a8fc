import { describe, expect, it } from 'vitest';
import { eventLoopTicks } from '../../../../test-support/event-loop-ticks.js';
import { detectDocumentType } from '../../src/document/detect-document-type.js';
import { listZipEntries, readZipEntry } from '../../src/document/zip-container.js';
import {
  DOCX_CONTENT_TYPES,
  docxZipBomb,
  makeCompoundFile,
  makeZip,
  repeatedDeflate,
} from '../../src/testing/container-samples.js';
import { type CompoundDamage, damageCompoundFile } from '../../src/testing/damaged-compound-file.js';
import { makeLargeCompoundFile } from '../../src/testing/large-compound-file.js';
import { makePdf } from '../../src/testing/pdf-samples.js';
import { previewFailure } from '../../src/testing/preview-failure.js';
import {
  ODF_VARIANT_DOCUMENTS,
  SAMPLE_DOCUMENTS,
  sampleDocument,
} from '../../src/testing/sample-documents.js';

const DAMAGES: readonly CompoundDamage[] = [
  'truncated',
  'extra-fat-sector',
  'stream-longer-than-chain',
  'sibling-to-missing-entry',
];

const LIMITS = { maxEntries: 10_000, maxUncompressedBytes: 512 * 1024 * 1024, maxCompressionRatio: 200 };

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
    expect((await previewFailure(detectDocumentType(new Uint8Array(0), LIMITS))).message).toContain(
      'received 0 bytes',
    );
    const random = await previewFailure(detectDocumentType(Buffer.from('hello, this is plain text'), LIMITS));
    expect(random.code).toBe('UNREADABLE_INPUT');
    expect(random.message).toContain('expected a doc, docx, odt, xls, xlsx, ods, ppt, pptx or odp document');
    const pdf = await previewFailure(detectDocumentType(await makePdf(1), LIMITS));
    expect(pdf.message).toContain('a PDF');
  });

  it('refuses a zip that is not an office document', async () => {
    const error = await previewFailure(
      detectDocumentType(makeZip([{ name: 'readme.txt', data: 'hello' }]), LIMITS),
    );
    expect(error.code).toBe('UNREADABLE_INPUT');
    expect(error.message).toContain('neither Office Open XML nor OpenDocument');
  });

  it('refuses other OpenDocument types and OOXML packages without a main part', async () => {
    const drawing = makeZip([
      { name: 'mimetype', data: 'application/vnd.oasis.opendocument.graphics', method: 'store' },
    ]);
    expect((await previewFailure(detectDocumentType(drawing, LIMITS))).message).toContain(
      'opendocument.graphics',
    );
    const empty = makeZip([{ name: '[Content_Types].xml', data: '<Types/>' }]);
    expect((await previewFailure(detectDocumentType(empty, LIMITS))).code).toBe('UNREADABLE_INPUT');
  });

  it('refuses a truncated zip as UNREADABLE_INPUT', async () => {
    const docx = await sampleDocument('text.docx');
    const error = await previewFailure(detectDocumentType(docx.subarray(0, docx.byteLength - 40), LIMITS));
    expect(error.code).toBe('UNREADABLE_INPUT');
  });

  it('tells doc, xls and ppt apart by their top-level stream names', async () => {
    expect(await detectDocumentType(makeCompoundFile(['WordDocument', '1Table']), LIMITS)).toBe('doc');
    expect(await detectDocumentType(makeCompoundFile(['Workbook']), LIMITS)).toBe('xls');
    expect(await detectDocumentType(makeCompoundFile(['Current User', 'PowerPoint Document']), LIMITS)).toBe(
      'ppt',
    );
  });

  it('reads stream names without regard to case, as the compound-file format compares them', async () => {
    expect(await detectDocumentType(makeCompoundFile(['WORKBOOK']), LIMITS)).toBe('xls');
    expect(await detectDocumentType(makeCompoundFile(['worddocument', '1Table']), LIMITS)).toBe('doc');
  });

  it('leaves a sound compound file of unclear application to the converter (reported as doc)', async () => {
    expect(await detectDocumentType(makeCompoundFile(['Contents']), LIMITS)).toBe('doc');
  });

  for (const [name, application] of [
    ['protected-text.doc', 'Word'],
    ['protected-spreadsheet.xls', 'Excel'],
  ] as const) {
    it(`answers PASSWORD_PROTECTED for ${name}, saved with a password by LibreOffice`, async () => {
      const error = await previewFailure(detectDocumentType(await sampleDocument(name), LIMITS));
      expect(error.code).toBe('PASSWORD_PROTECTED');
      expect(error.message).toBe(
        `the ${application} 97-2003 document is protected by a password, so it cannot be previewed`,
      );
      expect(error.details).toEqual({ application });
    });
  }

  it('answers PASSWORD_PROTECTED for a ppt whose CurrentUserAtom is marked encrypted (built from MS-PPT)', async () => {
    // LibreOffice 7.4 cannot save a PowerPoint 97 file with a password, so this one is built by hand.
    const atom = Buffer.alloc(28);
    atom.writeUInt16LE(0x0ff6, 2);
    atom.writeUInt32LE(20, 4);
    atom.writeUInt32LE(0x14, 8);
    atom.writeUInt32LE(0xf3d1c4df, 12);
    const encrypted = makeCompoundFile([{ name: 'Current User', data: atom }, 'PowerPoint Document']);
    const error = await previewFailure(detectDocumentType(encrypted, LIMITS));
    expect(error.code).toBe('PASSWORD_PROTECTED');
    expect(error.message).toContain('PowerPoint 97-2003 document is protected by a password');
    atom.writeUInt32LE(0xe391c05f, 12);
    const plain = makeCompoundFile([{ name: 'Current User', data: atom }, 'PowerPoint Document']);
    expect(await detectDocumentType(plain, LIMITS)).toBe('ppt');
  });

  it('leaves a doc whose WordDocument stream points past the end of the file to the converter', async () => {
    const file = Buffer.from(makeCompoundFile([{ name: 'WordDocument', data: new Uint8Array(64) }]));
    const entry = 512 * 2 + 128; // the directory's second entry
    file.writeUInt32LE(40, entry + 116); // start sector 40 of a 5-sector file
    file.writeUInt32LE(5000, entry + 120); // over the 4096-byte cutoff: regular sectors
    expect(await detectDocumentType(file, LIMITS)).toBe('doc');
  });

  it('still refuses a compound file whose sector size is neither 512 nor 4096 bytes', async () => {
    const file = Buffer.from(makeCompoundFile(['WordDocument']));
    file.writeUInt16LE(10, 30);
    const error = await previewFailure(detectDocumentType(file, LIMITS));
    expect(error.code).toBe('UNREADABLE_INPUT');
    expect(error.message).toContain('expected a complete OLE2 compound file');
  });

  for (const damage of DAMAGES) {
    it(`recognises an xls LibreOffice wrote with damage "${damage}" as xls, as LibreOffice opens it`, async () => {
      const damaged = damageCompoundFile(await sampleDocument('spreadsheet.xls'), damage);
      expect(await detectDocumentType(damaged, LIMITS)).toBe('xls');
    });
  }

  it('still sees the password of a damaged protected xls', async () => {
    for (const damage of DAMAGES) {
      const damaged = damageCompoundFile(await sampleDocument('protected-spreadsheet.xls'), damage);
      expect((await previewFailure(detectDocumentType(damaged, LIMITS))).code).toBe('PASSWORD_PROTECTED');
    }
  });

  for (const variant of ODF_VARIANT_DOCUMENTS) {
    it(`recognises ${variant.name} (LibreOffice, mimetype ${variant.mediaType.split('.').pop()}) as ${variant.type}`, async () => {
      const bytes = await sampleDocument(variant.name);
      const mimetype = (await listZipEntries(bytes, LIMITS)).find((entry) => entry.name === 'mimetype');
      expect(mimetype && (await readZipEntry(bytes, mimetype, 1024)).toString()).toBe(variant.mediaType);
      expect(await detectDocumentType(bytes, LIMITS)).toBe(variant.type);
    });
  }

  it('answers PASSWORD_PROTECTED for encrypted OOXML and encrypted OpenDocument files', async () => {
    const ooxml = await previewFailure(
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
    expect((await previewFailure(detectDocumentType(odf, LIMITS))).code).toBe('PASSWORD_PROTECTED');
  });
});

describe('detectDocumentType refuses zip bombs within its limits', () => {
  it('refuses a small zip bomb named .docx (1 GiB of zeros in about 1 MB) by its ratio, inflating nothing', async () => {
    const bomb = docxZipBomb(1024);
    expect(bomb.byteLength).toBeLessThan(2 * 1024 * 1024);
    const error = await previewFailure(detectDocumentType(bomb, LIMITS));
    expect(error.code).toBe('ARCHIVE_LIMIT_EXCEEDED');
    expect(error.message).toMatch(/expands \d+ times/);
  });

  it('refuses a bomb that lies about its sizes when the entry inflates past what it declared', async () => {
    const liar = docxZipBomb(64, true);
    const error = await previewFailure(detectDocumentType(liar, LIMITS));
    expect(error.code).toBe('ARCHIVE_LIMIT_EXCEEDED');
    expect(error.message).toContain('beyond its declared 1000 bytes');
  });

  it('refuses more declared bytes than maxUncompressedBytes', async () => {
    const big = makeZip([
      { name: '[Content_Types].xml', data: DOCX_CONTENT_TYPES },
      { name: 'word/document.xml', data: 'x', declaredSize: 600 * 1024 * 1024 },
    ]);
    const error = await previewFailure(
      detectDocumentType(big, { ...LIMITS, maxCompressionRatio: Number.MAX_VALUE }),
    );
    expect(error.code).toBe('ARCHIVE_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ maxUncompressedBytes: LIMITS.maxUncompressedBytes });
  });

  it('refuses more entries than maxEntries', async () => {
    const docx = await sampleDocument('text.docx');
    const error = await previewFailure(detectDocumentType(docx, { ...LIMITS, maxEntries: 3 }));
    expect(error.code).toBe('ARCHIVE_LIMIT_EXCEEDED');
    expect(error.message).toContain('more than the limit of 3');
  });
});

describe('detectDocumentType leaves the event loop free on large containers', () => {
  // Work that held the event loop would let the 1 ms timer fire 0 times, with one gap as long as
  // the work. The bounds are loose so a loaded machine passes; no duration is asserted.
  it('recognises a doc whose root holds 200 000 entries while a 1 ms timer keeps firing', async () => {
    const doc = makeLargeCompoundFile({
      streams: [{ name: 'WordDocument', size: 8192 }],
      extraEntries: 200_000,
    });
    const probe = await eventLoopTicks(() => detectDocumentType(doc, LIMITS));
    expect(probe.result).toBe('doc');
    expect(probe.ticks).toBeGreaterThanOrEqual(3);
    expect(probe.longestGapMs).toBeLessThan(probe.durationMs / 2);
  });

  it('recognises an xls with a 50 MB Workbook stream in regular sectors and a FAT past the header', async () => {
    const xls = makeLargeCompoundFile({ streams: [{ name: 'Workbook', size: 50 * 1024 * 1024 }] });
    expect(await detectDocumentType(xls, LIMITS)).toBe('xls');
  });

  it('inflates an xlsx part of 256 MiB chunk by chunk: the 1 ms timer fires all along', async () => {
    const rows = Array.from(
      { length: 12_000 },
      (_, row) => `<row r="${row}"><c><v>${(row * 7919) % 100_003}</v></c></row>`,
    );
    const sheet = Buffer.alloc(1024 * 1024, Buffer.from(rows.join('')));
    const xlsx = makeZip([
      {
        name: '[Content_Types].xml',
        data: DOCX_CONTENT_TYPES.replace('wordprocessingml.document', 'spreadsheetml.sheet'),
      },
      { name: 'xl/worksheets/sheet1.xml', data: '', deflated: repeatedDeflate(sheet, 256) },
    ]);
    const probe = await eventLoopTicks(() => detectDocumentType(xlsx, LIMITS));
    expect(probe.result).toBe('xlsx');
    expect(probe.ticks).toBeGreaterThanOrEqual(10);
    expect(probe.longestGapMs).toBeLessThan(probe.durationMs / 2);
  });

  it('refuses a part that inflates to fewer bytes than it declares as UNREADABLE_INPUT', async () => {
    const short = makeZip([
      { name: '[Content_Types].xml', data: DOCX_CONTENT_TYPES },
      { name: 'word/document.xml', data: '<w:document/>', declaredSize: 2000 },
    ]);
    const error = await previewFailure(detectDocumentType(short, LIMITS));
    expect(error.code).toBe('UNREADABLE_INPUT');
    expect(error.message).toContain('inflates to 13 bytes, not the declared 2000');
  });
});
