import type { Area } from '../image/area.js';
import type { RawPixels } from '../image/render-image.js';
import { assertPdfSize } from './open-pdf.js';
import type { PageRangeRequest } from './page-selection.js';
import { type PdfLimits, type PdfLimitsInput, pdfLimitsSchema } from './pdf-options.js';
import type { PdfTask, SelectedPages } from './pdf-task.js';
import { createPdfWorkerPool, type PdfTaskOptions, type PdfWorkerPool } from './pdf-worker-pool.js';

/** A PDF preview: the bytes and which pages of how many they hold. */
export type PdfPreview = SelectedPages;

/** Page selection and first-page rendering of PDFs, done by a {@link PdfWorkerPool}. */
export interface PdfPreviewer {
  readonly limits: PdfLimits;
  readonly pool: PdfWorkerPool;
  /**
   * The selected pages as a new PDF; the whole document returns the original bytes unchanged (the
   * same array unless `transferInput` handed it to the worker).
   * @throws {PreviewError} `UNREADABLE_INPUT` (empty, corrupt, no pages), `PASSWORD_PROTECTED`,
   * `INPUT_TOO_LARGE`, `INVALID_OPTION` (first_page below 1, past the end or after last_page),
   * `TOO_MANY_PAGES`, `RENDER_TIMEOUT`, `BUSY`.
   */
  preview(bytes: Uint8Array, range?: PageRangeRequest, options?: PdfTaskOptions): Promise<PdfPreview>;
  /**
   * The first page as raw RGB pixels large enough to cover `area`, for the thumbnail pipeline.
   * @throws {PreviewError} `UNREADABLE_INPUT`, `PASSWORD_PROTECTED`, `INPUT_TOO_LARGE`,
   * `RENDER_TIMEOUT`, `BUSY`.
   */
  renderFirstPage(bytes: Uint8Array, area: Area, options?: PdfTaskOptions): Promise<RawPixels>;
  /** Terminates the pool's workers (only when the previewer created the pool). */
  close(): Promise<void>;
}

/**
 * Creates a {@link PdfPreviewer}; `limits` are parsed once with {@link pdfLimitsSchema}. Without a
 * `pool` it starts its own, with the default options, and `close()` stops it.
 * @throws {ZodError} when a limit is not a positive whole number.
 */
export function createPdfPreviewer(limits: PdfLimitsInput = {}, pool?: PdfWorkerPool): PdfPreviewer {
  const parsed = pdfLimitsSchema.parse(limits);
  const workers = pool ?? createPdfWorkerPool();
  return {
    limits: parsed,
    pool: workers,
    async preview(bytes, range = {}, options = {}) {
      assertPdfSize(bytes, parsed.maxInputBytes);
      const { maxPagesPerSelection } = parsed;
      const task: PdfTask = { kind: 'select-pages', bytes, range, maxPagesPerSelection };
      const { value } = await workers.run(task, options);
      const preview = value as SelectedPages;
      const whole = preview.firstPage === 1 && preview.lastPage === preview.pageCount;
      return whole && bytes.byteLength > 0 ? { ...preview, data: bytes } : preview;
    },
    async renderFirstPage(bytes, area, options = {}) {
      assertPdfSize(bytes, parsed.maxInputBytes);
      const task: PdfTask = {
        kind: 'render-first-page',
        bytes,
        area,
        maxRenderPixels: parsed.maxRenderPixels,
      };
      const { value } = await workers.run(task, options);
      return value as RawPixels;
    },
    close: () => (pool ? Promise.resolve() : workers.close()),
  };
}
