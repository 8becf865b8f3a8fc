import { PreviewError } from '../errors.js';
import type { ImageThumbnailRequest, OutputFormat } from '../image/image-options.js';
import type { RenderedImage } from '../image/render-image.js';
import { resolveArea } from '../image/render-request.js';
import { assertKnownOptions } from '../options/parse-options.js';
import { type PreviewInput, type PreviewService, thumbnailOptions } from '../preview-service.js';
import { assertPdfSize } from './open-pdf.js';
import type { PageRangeRequest } from './page-selection.js';
import type { PdfLimitsInput } from './pdf-options.js';
import { createPdfPreviewer, type PdfPreview, type PdfPreviewer } from './pdf-previewer.js';
import {
  createPdfWorkerPool,
  type PdfWorkerPool,
  type PdfWorkerPoolOptions,
  type PdfWorkerPoolStats,
} from './pdf-worker-pool.js';

/** How a request hands its input to the PDF workers. */
export interface PdfInputOptions {
  /**
   * Hand an uploaded `Uint8Array` to the worker instead of copying it: the whole ArrayBuffer behind
   * it is moved and detached (see `PdfTaskOptions.transferInput`). Stored files are always handed over.
   * @default false
   */
  readonly transferInput?: boolean | undefined;
}

/** A PDF preview request: the page range, an optional abort signal and how the input is handed over. */
export interface PdfPreviewRequest extends PageRangeRequest, PdfInputOptions {
  readonly signal?: AbortSignal | undefined;
}

/** PDF previews and thumbnails of uploads and stored files, sharing the image service's render queue. */
export interface PdfPreviewService {
  readonly previewer: PdfPreviewer;
  /**
   * The selected pages as a PDF (the original bytes when the whole document is asked for).
   * @throws {PreviewError} `UNREADABLE_INPUT`, `PASSWORD_PROTECTED`, `INPUT_TOO_LARGE`, `INVALID_OPTION`,
   * `TOO_MANY_PAGES`, `NOT_FOUND`, `STORAGE_UNAVAILABLE`, `BUSY`.
   */
  preview(input: PreviewInput, request?: PdfPreviewRequest): Promise<PdfPreview>;
  /**
   * A thumbnail of the first page: rendered by mupdf, its raw pixels cropped from the top by sharp.
   * @throws {PreviewError} `INVALID_AREA`, `OUTPUT_TOO_LARGE`, `INVALID_OPTION` (gif output),
   * `UNREADABLE_INPUT`, `PASSWORD_PROTECTED`, `INPUT_TOO_LARGE`, `NOT_FOUND`, `STORAGE_UNAVAILABLE`, `BUSY`,
   * `RENDER_TIMEOUT` (mupdf's drawing, in its worker, or the sharp step).
   */
  thumbnail(input: PreviewInput, request: ImageThumbnailRequest & PdfInputOptions): Promise<RenderedImage>;
  /**
   * Checks what {@link PdfPreviewService.preview} checks before opening the PDF (the input exists and
   * is within the size limit), without opening, copying or queueing anything (e.g. for HTTP HEAD).
   * @throws {PreviewError} `NOT_FOUND`, `STORAGE_UNAVAILABLE`, `INPUT_TOO_LARGE`, `UNREADABLE_INPUT` (0 bytes).
   */
  planPreview(input: PreviewInput, request?: PdfPreviewRequest): Promise<void>;
  /**
   * The output format {@link PdfPreviewService.thumbnail} would answer, after its checks of the options
   * and input size, without rendering anything.
   * @throws {PreviewError} `INVALID_AREA`, `OUTPUT_TOO_LARGE`, `INVALID_OPTION` (gif output), and the
   * codes of `planPreview`.
   */
  planThumbnail(input: PreviewInput, request: ImageThumbnailRequest): Promise<{ format: OutputFormat }>;
  /**
   * Fails now when PDF work asked at this moment would be refused (before reading a large upload).
   * @throws {PreviewError} `BUSY` with `details.retryAfterSeconds`.
   */
  assertCapacity(): void;
  /** The worker pool's figures, for health reports. */
  stats(): PdfWorkerPoolStats;
  /** Stops the worker pool it created (not one passed in). */
  close(): Promise<void>;
}

/** The output format of a page thumbnail: jpeg unless png is asked; gif is refused. */
export function pageThumbnailFormat(request: ImageThumbnailRequest, source: string): OutputFormat {
  assertPageThumbnailFormat(request, source);
  return request.outputFormat ?? 'jpeg';
}

/** Refuses gif output for page thumbnails before anything is rendered. */
export function assertPageThumbnailFormat(request: ImageThumbnailRequest, source: string): void {
  if (request.outputFormat === 'gif') {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected \`output_format\` jpeg or png for a ${source} thumbnail but received "gif" (gif output needs a gif input)`,
      { details: { option: 'output_format' } },
    );
  }
}

/**
 * Creates the PDF part of the preview service on top of an image {@link PreviewService} (its input
 * reading and thumbnail pipeline). PDF work runs in `pool`, or in a pool of its own created from
 * `workers` whose deadline defaults to the image service's `renderTimeoutSeconds`.
 * @throws {PreviewError} `INVALID_OPTION` when a limit or option is malformed or unknown.
 */
export function createPdfPreviewService(options: {
  readonly previewService: PreviewService;
  readonly limits?: PdfLimitsInput;
  readonly workers?: PdfWorkerPoolOptions;
  readonly pool?: PdfWorkerPool;
}): PdfPreviewService {
  assertKnownOptions(options, ['previewService', 'limits', 'workers', 'pool']);
  const { previewService } = options;
  const pool =
    options.pool ??
    createPdfWorkerPool({ timeoutSeconds: previewService.limits.renderTimeoutSeconds, ...options.workers });
  const previewer = createPdfPreviewer(options.limits, pool);
  const readPdf = async (input: PreviewInput, signal: AbortSignal | undefined) => {
    const bytes = await previewService.readInput(input, signal);
    assertPdfSize(bytes, previewer.limits.maxInputBytes);
  };
  // Stored files are read for this request alone; uploads are the caller's unless it hands them over.
  const transferInput = (input: PreviewInput, request: PdfInputOptions) =>
    !(input instanceof Uint8Array) || request.transferInput === true;
  return {
    previewer,
    planPreview: (input, request = {}) => readPdf(input, request.signal),
    async planThumbnail(input, request) {
      const format = pageThumbnailFormat(request, 'PDF');
      resolveArea(request.area, previewService.limits.maxOutputSide);
      await readPdf(input, request.signal);
      return { format };
    },
    async preview(input, request = {}) {
      const bytes = await previewService.readInput(input, request.signal);
      return previewer.preview(bytes, request, {
        signal: request.signal,
        transferInput: transferInput(input, request),
      });
    },
    async thumbnail(input, request) {
      assertPageThumbnailFormat(request, 'PDF');
      const area = resolveArea(request.area, previewService.limits.maxOutputSide);
      const bytes = await previewService.readInput(input, request.signal);
      const { transferInput: _handedOver, ...imageRequest } = request;
      const { options: render } = thumbnailOptions(
        { ...imageRequest, area, cropPosition: 'top' },
        previewService.limits.maxOutputSide,
      );
      return previewer.thumbnailFirstPage(bytes, render, previewService.limits, {
        signal: request.signal,
        transferInput: transferInput(input, request),
      });
    },
    assertCapacity: () => pool.assertCapacity(),
    stats: () => pool.stats(),
    close: () => (options.pool ? Promise.resolve() : pool.close()),
  };
}
