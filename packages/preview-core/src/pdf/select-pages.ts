import { PreviewError } from '../errors.js';
import { loadPdfLib } from '../options/optional-peer.js';
import type { OpenedPdf } from './open-pdf.js';
import type { PageSelection } from './page-selection.js';

/** Zero-based page numbers of the selection. */
function selectedIndices(selection: PageSelection): number[] {
  return Array.from({ length: selection.count }, (_, offset) => selection.firstPage - 1 + offset);
}

/**
 * Copies pages with pdf-lib, which keeps the original objects as they are. Throws whatever pdf-lib
 * throws, and when pdf-lib counts other pages than mupdf (its page numbers would not be the same).
 */
async function copyWithPdfLib(bytes: Uint8Array, opened: OpenedPdf, indices: number[]): Promise<Uint8Array> {
  const { PDFDocument } = await loadPdfLib();
  const source = await PDFDocument.load(bytes, { updateMetadata: false });
  if (source.getPageCount() !== opened.pageCount) {
    throw new Error(`pdf-lib sees ${source.getPageCount()} pages where mupdf sees ${opened.pageCount}`);
  }
  const target = await PDFDocument.create({ updateMetadata: false });
  const pages = await target.copyPages(source, indices);
  for (const page of pages) target.addPage(page);
  return target.save();
}

/**
 * Copies pages with mupdf from the document it already opened (and repaired where it had to), with
 * their resources, into a new PDF that mupdf writes. Reads what pdf-lib refuses: damaged page trees,
 * encrypted files that open without a password.
 */
function copyWithMupdf(opened: OpenedPdf, indices: number[]): Uint8Array {
  const target = new opened.mupdf.PDFDocument();
  try {
    const graft = target.newGraftMap();
    for (const index of indices) graft.graftPage(-1, opened.document, index);
    graft.destroy();
    const buffer = target.saveToBuffer('garbage=compact');
    try {
      return buffer.asUint8Array().slice();
    } finally {
      buffer.destroy();
    }
  } finally {
    target.destroy();
  }
}

/**
 * The selected pages as a new PDF, or the original bytes unchanged when the selection is the whole
 * document. pdf-lib copies them; when it cannot parse or copy the file, mupdf does.
 * @throws {PreviewError} `UNREADABLE_INPUT` when neither can copy the pages.
 */
export async function selectPages(
  bytes: Uint8Array,
  opened: OpenedPdf,
  selection: PageSelection,
): Promise<Uint8Array> {
  if (selection.whole) return bytes;
  const indices = selectedIndices(selection);
  let pdfLibError: unknown;
  try {
    return await copyWithPdfLib(bytes, opened, indices);
  } catch (error) {
    pdfLibError = error;
  }
  try {
    return copyWithMupdf(opened, indices);
  } catch (mupdfError) {
    const pages = `${selection.firstPage}-${selection.lastPage}`;
    throw new PreviewError(
      'UNREADABLE_INPUT',
      `expected a PDF whose pages can be copied but pages ${pages} of this one are too damaged to copy`,
      {
        cause: new AggregateError(
          [pdfLibError, mupdfError],
          'neither pdf-lib nor mupdf could copy the pages',
        ),
      },
    );
  }
}
