import { execFile } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMupdf } from '../../src/pdf/mupdf-module.js';
import { openPdf } from '../../src/pdf/open-pdf.js';
import { resolvePageSelection } from '../../src/pdf/page-selection.js';
import { createPdfPreviewer } from '../../src/pdf/pdf-previewer.js';
import { selectPages } from '../../src/pdf/select-pages.js';
import { makeAttachmentEncryptedPdf } from '../../src/testing/attachment-encrypted-pdf.js';
import {
  encryptPdf,
  makeMisparentedPdf,
  makeOvercountedPdf,
  makePdf,
  pdfPageTexts,
} from '../../src/testing/pdf-samples.js';
import { previewFailure } from '../../src/testing/preview-failure.js';

const run = promisify(execFile);

/** The bytes of the first stream after `marker`, as written between `stream\n` and `endstream`. */
function streamAfter(bytes: Uint8Array, marker: string): Buffer {
  const text = Buffer.from(bytes).toString('latin1');
  const start = text.indexOf('stream\n', text.indexOf(marker)) + 'stream\n'.length;
  return Buffer.from(text.slice(start, text.indexOf('\nendstream', start)), 'latin1');
}

describe('PDFs from the real world that viewers show', () => {
  const previewer = createPdfPreviewer();
  let folder: string;
  let attachmentEncrypted: Uint8Array;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'real-world-pdfs-'));
    attachmentEncrypted = await makeAttachmentEncryptedPdf(3, 'secret');
  });
  afterAll(async () => {
    await previewer.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('builds a genuine attachments-only encrypted PDF: qpdf sees plain pages and an AES-256 attachment', async () => {
    const path = join(folder, 'attachment-encrypted.pdf');
    await writeFile(path, attachmentEncrypted);
    const args = ['--show-encryption', '--show-encryption-key', '--password=secret', path];
    const { stdout } = await run('qpdf', args);
    expect(stdout).toContain('Supplied password is user password');
    expect(stdout).toContain('stream encryption method: none');
    expect(stdout).toContain('string encryption method: none');
    expect(stdout).toContain('file encryption method: AESv3');
    // The attachment opens only with the key the password unlocks (qpdf 11 does not decrypt it itself).
    const key = Buffer.from(/Encryption key = ([0-9a-f]{64})/.exec(stdout)?.[1] ?? '', 'hex');
    const sealed = streamAfter(attachmentEncrypted, '/Type /EmbeddedFile');
    const decipher = createDecipheriv('aes-256-cbc', key, sealed.subarray(0, 16));
    const opened = Buffer.concat([decipher.update(sealed.subarray(16)), decipher.final()]);
    expect(opened.toString()).toBe('attachment');
  });

  it('previews and thumbnails a PDF whose encryption covers embedded files only', async () => {
    const whole = await previewer.preview(attachmentEncrypted);
    expect(whole).toMatchObject({ firstPage: 1, lastPage: 3, pageCount: 3 });
    const middle = await previewer.preview(attachmentEncrypted, { firstPage: 2, lastPage: 3 });
    expect(await pdfPageTexts(middle.data)).toEqual(['Page 2', 'Page 3']);
    const pixels = await previewer.renderFirstPage(attachmentEncrypted, { width: 64, height: 64 });
    expect(pixels.width).toBeGreaterThanOrEqual(64);
  });

  it('still refuses a PDF whose pages need the password', async () => {
    const locked = await encryptPdf(await makePdf(3), { userPassword: 'secret', ownerPassword: 'owner' });
    const error = await previewFailure(previewer.preview(locked, { firstPage: 2, lastPage: 2 }));
    expect(error.code).toBe('PASSWORD_PROTECTED');
    expect(error.message).toBe('the PDF is protected by a password, so it cannot be previewed');
  });

  it('copies pages with mupdf when pdf-lib fails on a malformed /Parent', async () => {
    const misparented = await makeMisparentedPdf(3, 2);
    const target = await PDFDocument.create();
    const loaded = await PDFDocument.load(misparented);
    await expect(target.copyPages(loaded, [1])).rejects.toThrow(/ascend is not a function/);
    const preview = await previewer.preview(misparented, { firstPage: 2, lastPage: 3 });
    expect(preview).toMatchObject({ firstPage: 2, lastPage: 3, pageCount: 3 });
    expect(await pdfPageTexts(preview.data)).toEqual(['Page 2', 'Page 3']);
  });

  it('counts the pages a page tree holds, not the /Count it claims, and previews them all', async () => {
    const overcounted = await makeOvercountedPdf(3, 5);
    const opened = await openPdf(overcounted);
    try {
      expect(opened.pageCount).toBe(3);
    } finally {
      opened.close();
    }
    const whole = await previewer.preview(overcounted);
    expect(whole).toMatchObject({ firstPage: 1, lastPage: 3, pageCount: 3 });
    expect(await pdfPageTexts(whole.data)).toEqual(['Page 1', 'Page 2', 'Page 3']);
    const pastTheEnd = await previewFailure(previewer.preview(overcounted, { firstPage: 4, lastPage: 5 }));
    expect(pastTheEnd.code).toBe('INVALID_OPTION');
    expect(pastTheEnd.message).toContain('the document has 3 pages');
  });

  it('refuses pages neither pdf-lib nor mupdf can copy, in its own words', async () => {
    // mupdf as it opens the file, before any page is loaded, still believes the claimed /Count: the
    // selection asks for pages 4-5, which pdf-lib does not see and mupdf cannot graft.
    const overcounted = await makeOvercountedPdf(3, 5);
    expect((await PDFDocument.load(overcounted)).getPageCount()).toBe(3);
    const mupdf = await loadMupdf();
    const document = new mupdf.PDFDocument(overcounted);
    try {
      expect(document.countPages()).toBe(5);
      const claimed = { mupdf, document, pageCount: 5, repaired: false, close: () => {} };
      const graft = new mupdf.PDFDocument().newGraftMap();
      expect(() => graft.graftPage(-1, document, 3)).toThrow(/cannot find page 4/);
      const selection = resolvePageSelection({ firstPage: 4, lastPage: 5 }, claimed.pageCount, 100);
      const error = await previewFailure(selectPages(overcounted, claimed, selection));
      expect(error.code).toBe('UNREADABLE_INPUT');
      expect(error.message).toBe(
        'expected a PDF whose pages can be copied but pages 4-5 of this one are too damaged to copy',
      );
      expect(error.cause).toBeInstanceOf(AggregateError);
      expect((error.cause as AggregateError).errors).toHaveLength(2);
    } finally {
      document.destroy();
    }
  });

  it('words refusals itself, without the PDF libraries’ own messages', async () => {
    const tenPages = await makePdf(10);
    const truncated = await previewFailure(previewer.preview(tenPages.subarray(0, 300)));
    expect(truncated.code).toBe('UNREADABLE_INPUT');
    expect(truncated.message).toMatch(
      /^expected a readable PDF but it (is not a PDF|has no pages)[^()]*(\(it may be truncated or damaged\))?$/,
    );
    const text = await previewFailure(previewer.preview(Buffer.from('%PDF-1.7 nothing else')));
    expect(text.message).toMatch(/^expected a readable PDF but /);
    expect(text.message).not.toMatch(/startxref|xref|trailer|object|token/i);
  });
});
