import type { Area } from '../image/area.js';
import type { RawPixels } from '../image/render-image.js';
import { assertPdfSize, openPdf } from './open-pdf.js';
import { type PageRangeRequest, resolvePageSelection } from './page-selection.js';
import { type PdfLimits, type PdfLimitsInput, pdfLimitsSchema } from './pdf-options.js';
import { renderPage } from './render-page.js';
import { selectPages } from './select-pages.js';

/** A PDF preview: the bytes and which pages of how many they hold. */
export interface PdfPreview {
  readonly data: Uint8Array;
  readonly firstPage: number;
  readonly lastPage: number;
  /** Pages of the source document. */
  readonly pageCount: number;
}

/** Page selection and first-page rendering of PDFs (pdf-lib to copy pages, mupdf to open and draw). */
export interface PdfPreviewer {
  readonly limits: PdfLimits;
  /**
   * The selected pages as a new PDF; the whole document returns the original bytes unchanged.
   * @throws {PreviewError} `UNREADABLE_INPUT` (empty, corrupt, no pages), `PASSWORD_PROTECTED`,
   * `INPUT_TOO_LARGE`, `INVALID_OPTION` (first_page below 1, past the end or after last_page),
   * `TOO_MANY_PAGES`.
   */
  preview(bytes: Uint8Array, range?: PageRangeRequest): Promise<PdfPreview>;
  /**
   * The first page as raw RGB pixels large enough to cover `area`, for the thumbnail pipeline.
   * @throws {PreviewError} `UNREADABLE_INPUT`, `PASSWORD_PROTECTED`, `INPUT_TOO_LARGE`.
   */
  renderFirstPage(bytes: Uint8Array, area: Area): Promise<RawPixels>;
}

/**
 * Creates a {@link PdfPreviewer}; `limits` are parsed once with {@link pdfLimitsSchema}.
 * @throws {ZodError} when a limit is not a positive whole number.
 */
export function createPdfPreviewer(limits: PdfLimitsInput = {}): PdfPreviewer {
  const parsed = pdfLimitsSchema.parse(limits);
  return {
    limits: parsed,
    async preview(bytes, range = {}) {
      assertPdfSize(bytes, parsed.maxInputBytes);
      const opened = await openPdf(bytes);
      try {
        const selection = resolvePageSelection(range, opened.pageCount, parsed.maxPagesPerSelection);
        const data = await selectPages(bytes, opened, selection);
        return {
          data,
          firstPage: selection.firstPage,
          lastPage: selection.lastPage,
          pageCount: opened.pageCount,
        };
      } finally {
        opened.close();
      }
    },
    async renderFirstPage(bytes, area) {
      assertPdfSize(bytes, parsed.maxInputBytes);
      const opened = await openPdf(bytes);
      try {
        return renderPage(opened, 0, area, parsed.maxRenderPixels, { thumbnailOnly: true });
      } finally {
        opened.close();
      }
    },
  };
}
