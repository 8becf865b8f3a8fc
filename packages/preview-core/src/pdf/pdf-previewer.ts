import type { Area } from '../image/area.js';
import type { RenderOptions } from '../image/image-options.js';
import type { RawPixels, RenderedImage } from '../image/render-image.js';
import type { PreviewLimits } from '../limits/preview-limits.js';
import { parseOptions } from '../options/parse-options.js';
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
  /**
   * The first page drawn and encoded as a thumbnail by the worker (with sharp, in that thread), so
   * only the encoded image comes back.
   * @throws {PreviewError} the codes of `renderFirstPage`, and `TOO_MANY_PIXELS`, `OUTPUT_TOO_LARGE`.
   */
  thumbnailFirstPage(
    bytes: Uint8Array,
    render: RenderOptions,
    limits: PreviewLimits,
    options?: PdfTaskOptions,
  ): Promise<RenderedImage>;
  /** Terminates the pool's workers (only when the previewer created the pool). */
  close(): Promise<void>;
}

/**
 * Creates a {@link PdfPreviewer}; `limits` are parsed once with {@link pdfLimitsSchema}. Without a
 * `pool` it starts its own, with the default options, and `close()` stops it.
 * @throws {PreviewError} `INVALID_OPTION` when a limit is not a positive whole number.
 */
export function createPdfPreviewer(limits: PdfLimitsInput = {}, pool?: PdfWorkerPool): PdfPreviewer {
  const parsed = parseOptions(pdfLimitsSchema, limits, 'limits.');
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
    async thumbnailFirstPage(bytes, render, limits, options = {}) {
      assertPdfSize(bytes, parsed.maxInputBytes);
      const task: PdfTask = {
        kind: 'thumbnail-first-page',
        bytes,
        area: render.area,
        maxRenderPixels: parsed.maxRenderPixels,
        render,
        limits,
      };
      const { value } = await workers.run(task, options);
      const image = value as RenderedImage;
      // The bytes crossed the thread boundary as a plain Uint8Array; callers get a Buffer, as from sharp.
      const { buffer, byteOffset, byteLength } = image.data;
      return { ...image, data: Buffer.from(buffer, byteOffset, byteLength) };
    },
    close: () => (pool ? Promise.resolve() : workers.close()),
  };
}
