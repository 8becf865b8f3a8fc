import { PreviewError } from '../errors.js';
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

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
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

function unreadable(reason: string, cause?: unknown): PreviewError {
  const messages = takeMupdfMessages().slice(-3).join('; ');
  return new PreviewError(
    'UNREADABLE_INPUT',
    `expected a readable PDF but ${reason}${messages ? ` (${messages})` : ''}`,
    cause === undefined ? {} : { cause },
  );
}

/**
 * Opens a PDF with mupdf, repairing a damaged cross-reference table when it can.
 * @throws {PreviewError} `UNREADABLE_INPUT` when the bytes are not a PDF or it has no pages;
 * `PASSWORD_PROTECTED` when it needs a password to open.
 */
export async function openPdf(bytes: Uint8Array): Promise<OpenedPdf> {
  const mupdf = await loadMupdf();
  takeMupdfMessages();
  let document: InstanceType<Mupdf['PDFDocument']>;
  try {
    document = new mupdf.PDFDocument(bytes);
  } catch (error) {
    throw unreadable(`parsing failed: ${firstLine(error)}`, error);
  }
  const close = () => document.destroy();
  try {
    if (document.needsPassword()) {
      throw new PreviewError(
        'PASSWORD_PROTECTED',
        'the PDF is protected by a password, so it cannot be previewed',
      );
    }
    const pageCount = document.countPages();
    if (pageCount < 1) throw unreadable('it has no pages (it may be truncated or damaged)');
    return { mupdf, document, pageCount, repaired: document.wasRepaired(), close };
  } catch (error) {
    close();
    if (error instanceof PreviewError) throw error;
    throw unreadable(`reading it failed: ${firstLine(error)}`, error);
  }
}
