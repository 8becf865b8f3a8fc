import { PDFDocument } from 'pdf-lib';
import { PreviewError } from '../errors.js';
import type { OpenedPdf } from './open-pdf.js';
import type { PageSelection } from './page-selection.js';

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * Bytes pdf-lib can parse: the original, or mupdf's rewrite of it when pdf-lib refuses it, which
 * happens for a PDF encrypted with an owner password only (readable without a password) and for a
 * damaged file mupdf repaired.
 */
async function loadForCopy(bytes: Uint8Array, opened: OpenedPdf): Promise<PDFDocument> {
  try {
    const direct = await PDFDocument.load(bytes, { updateMetadata: false });
    if (direct.getPageCount() === opened.pageCount) return direct;
    throw new Error(`pdf-lib sees ${direct.getPageCount()} pages where mupdf sees ${opened.pageCount}`);
  } catch (error) {
    try {
      const rewritten = opened.document.saveToBuffer('encrypt=none,garbage=compact');
      try {
        return await PDFDocument.load(rewritten.asUint8Array(), { updateMetadata: false });
      } finally {
        rewritten.destroy();
      }
    } catch {
      throw new PreviewError(
        'UNREADABLE_INPUT',
        `expected a PDF whose pages can be copied but parsing failed: ${firstLine(error)}`,
        { cause: error },
      );
    }
  }
}

/**
 * The selected pages as a new PDF, or the original bytes unchanged when the selection is the whole
 * document.
 * @throws {PreviewError} `UNREADABLE_INPUT` when the pages cannot be copied.
 */
export async function selectPages(
  bytes: Uint8Array,
  opened: OpenedPdf,
  selection: PageSelection,
): Promise<Uint8Array> {
  if (selection.whole) return bytes;
  const source = await loadForCopy(bytes, opened);
  const target = await PDFDocument.create({ updateMetadata: false });
  const indices = Array.from({ length: selection.count }, (_, offset) => selection.firstPage - 1 + offset);
  try {
    const pages = await target.copyPages(source, indices);
    for (const page of pages) target.addPage(page);
    return await target.save();
  } catch (error) {
    throw new PreviewError(
      'UNREADABLE_INPUT',
      `expected PDF pages that can be copied but copying failed: ${firstLine(error)}`,
      {
        cause: error,
      },
    );
  }
}
