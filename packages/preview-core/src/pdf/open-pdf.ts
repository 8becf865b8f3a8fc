import { PreviewError } from '../errors.js';
import { encryptsOnlyEmbeddedFiles } from './encryption-scope.js';
import { loadMupdf, type Mupdf, takeMupdfMessages } from './mupdf-module.js';

/** A PDF opened with mupdf and checked: not empty, not locked, at least one page. Call `close()`. */
export interface OpenedPdf {
  readonly mupdf: Mupdf;
  readonly document: InstanceType<Mupdf['PDFDocument']>;
  readonly pageCount: number;
  /** True when mupdf had to rebuild a damaged cross-reference table. */
  readonly repaired: boolean;
  close(): void;
}

/**
 * Checks `bytes` against the size limit before anything parses them.
 * @throws {PreviewError} `UNREADABLE_INPUT` for zero bytes; `INPUT_TOO_LARGE` above `maxInputBytes`.
 */
export function assertPdfSize(bytes: Uint8Array, maxInputBytes: number): void {
  if (bytes.byteLength === 0) {
    throw new PreviewError('UNREADABLE_INPUT', 'expected a PDF file but received 0 bytes');
  }
  if (bytes.byteLength > maxInputBytes) {
    throw new PreviewError(
      'INPUT_TOO_LARGE',
      `expected a PDF of at most ${maxInputBytes} bytes but received ${bytes.byteLength} bytes`,
      { details: { bytes: bytes.byteLength, maxInputBytes } },
    );
  }
}

/**
 * A refusal in our words. mupdf's own messages (its exception and recent warnings) stay in `cause`
 * for logs: they name its internals, not what the client can do about the file.
 */
function unreadable(reason: string, error?: unknown): PreviewError {
  const messages = takeMupdfMessages().slice(-3);
  const cause = error ?? (messages.length > 0 ? new Error(messages.join('; ')) : undefined);
  return new PreviewError(
    'UNREADABLE_INPUT',
    `expected a readable PDF but ${reason}`,
    cause === undefined ? {} : { cause },
  );
}

/**
 * Opens a PDF with mupdf, repairing a damaged cross-reference table when it can, and counting the
 * pages its page tree really holds. A PDF whose
 * encryption covers embedded files only opens without a password: its pages are not encrypted.
 * @throws {PreviewError} `UNREADABLE_INPUT` when the bytes are not a PDF or it has no pages;
 * `PASSWORD_PROTECTED` when its pages need a password.
 */
export async function openPdf(bytes: Uint8Array): Promise<OpenedPdf> {
  const mupdf = await loadMupdf();
  takeMupdfMessages();
  let document: InstanceType<Mupdf['PDFDocument']>;
  try {
    document = new mupdf.PDFDocument(bytes);
  } catch (error) {
    throw unreadable('it is not a PDF or is damaged beyond repair', error);
  }
  const close = () => document.destroy();
  try {
    if (document.needsPassword() && !encryptsOnlyEmbeddedFiles(document)) {
      throw new PreviewError(
        'PASSWORD_PROTECTED',
        'the PDF is protected by a password, so it cannot be previewed',
      );
    }
    // Loading a page makes mupdf walk the page tree: a tree whose /Count claims pages it does not
    // hold is counted again, so the count is that of the pages there are, as viewers show them.
    try {
      document.loadPage(0).destroy();
    } catch {
      // The first page itself is damaged: the count stays the claimed one, and its render says so.
    }
    const pageCount = document.countPages();
    if (pageCount < 1) throw unreadable('it has no pages (it may be truncated or damaged)');
    return { mupdf, document, pageCount, repaired: document.wasRepaired(), close };
  } catch (error) {
    close();
    if (error instanceof PreviewError) throw error;
    throw unreadable('its structure cannot be read (it is damaged beyond repair)', error);
  }
}
