import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentType } from '../../src/document/document-type.js';
import {
  createLibreOfficeConverter,
  type LibreOfficeConverter,
} from '../../src/document/libreoffice/libreoffice-converter.js';
import { makeCommentedDocx, makeCommentedOdt } from '../../src/testing/commented-documents.js';
import { pdfPageTexts } from '../../src/testing/pdf-samples.js';
import { makeWord6Document } from '../../src/testing/word6-document.js';

// Writer documents with comments used to abort the warm soffice (exit 134, DisposedException in the
// helper): Writer builds comment windows from a .ui file the Debian -nogui packages do not ship.
// `soffice --convert-to` converted the same files. Real LibreOffice, one warm instance.

const PARAGRAPHS = ['Reviewed opening paragraph', 'Second paragraph without a comment'];
const COMMENT = 'Reviewer remark that stays out of the PDF';

const DOCUMENTS: ReadonlyArray<{ name: string; type: DocumentType; data: Uint8Array }> = [
  {
    name: 'commented.docx',
    type: 'docx',
    data: makeCommentedDocx({ paragraphs: PARAGRAPHS, comment: COMMENT }),
  },
  {
    name: 'commented.docx tracking changes',
    type: 'docx',
    data: makeCommentedDocx({ paragraphs: PARAGRAPHS, comment: COMMENT, trackChanges: true }),
  },
  {
    name: 'commented.odt',
    type: 'odt',
    data: makeCommentedOdt({ paragraphs: PARAGRAPHS, comment: COMMENT }),
  },
  {
    name: 'commented.odt tracking changes',
    type: 'odt',
    data: makeCommentedOdt({ paragraphs: PARAGRAPHS, comment: COMMENT, trackChanges: true }),
  },
];

describe('LibreOffice pool converting documents with comments', () => {
  let converter: LibreOfficeConverter;

  beforeAll(async () => {
    converter = createLibreOfficeConverter({ instances: 1 });
    await converter.whenStarted();
  });
  afterAll(() => converter.close());

  for (const document of DOCUMENTS) {
    it(`converts ${document.name} whole, page 1 and counted, without restarting the instance`, async () => {
      const { data, type } = document;
      const whole = await pdfPageTexts(await converter.convert({ data, type }));
      expect(whole).toHaveLength(1);
      expect(whole[0]?.split('\n')).toEqual(PARAGRAPHS);
      const first = await pdfPageTexts(await converter.convert({ data, type, pages: { first: 1, last: 1 } }));
      expect(first[0]).toContain(PARAGRAPHS[0]);
      const counted = await converter.convertPages?.({ data, type, pages: { first: 1, last: 1 } });
      expect(counted?.pageCount).toBe(1);
      expect(converter.status().restarts).toBe(0);
    });
  }

  it('leaves the comment out of the PDF and keeps converting documents without comments', async () => {
    const commented = await pdfPageTexts(
      await converter.convert({ data: DOCUMENTS[0]?.data ?? new Uint8Array(), type: 'docx' }),
    );
    expect(commented.join('\n')).not.toContain(COMMENT);
    const plain = makeWord6Document({ version: 'word95', paragraphs: ['Plain paragraph, no comment'] });
    const pages = await pdfPageTexts(await converter.convert({ data: plain, type: 'doc' }));
    expect(pages[0]).toContain('Plain paragraph, no comment');
    expect(converter.status()).toMatchObject({ restarts: 0, failures: 0 });
  });
});
