import { PreviewError } from '../errors.js';
import type { ImageThumbnailRequest } from '../image/image-options.js';
import type { RenderedImage } from '../image/render-image.js';
import { resolveArea } from '../image/render-request.js';
import type { PreviewInput, PreviewService } from '../preview-service.js';
import type { PageRangeRequest } from './page-selection.js';
import type { PdfLimitsInput } from './pdf-options.js';
import { createPdfPreviewer, type PdfPreview, type PdfPreviewer } from './pdf-previewer.js';

/** A PDF preview request: the page range and an optional abort signal. */
export interface PdfPreviewRequest extends PageRangeRequest {
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
   * `UNREADABLE_INPUT`, `PASSWORD_PROTECTED`, `INPUT_TOO_LARGE`, `NOT_FOUND`, `STORAGE_UNAVAILABLE`, `BUSY`.
   */
  thumbnail(input: PreviewInput, request: ImageThumbnailRequest): Promise<RenderedImage>;
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
 * reading, render queue and thumbnail pipeline).
 * @throws {ZodError} when a limit is malformed.
 */
export function createPdfPreviewService(options: {
  readonly previewService: PreviewService;
  readonly limits?: PdfLimitsInput;
}): PdfPreviewService {
  const { previewService } = options;
  const previewer = createPdfPreviewer(options.limits);
  return {
    previewer,
    async preview(input, request = {}) {
      const bytes = await previewService.readInput(input, request.signal);
      return previewService.schedule(() => previewer.preview(bytes, request), request.signal);
    },
    async thumbnail(input, request) {
      assertPageThumbnailFormat(request, 'PDF');
      const area = resolveArea(request.area, previewService.limits.maxOutputSide);
      const bytes = await previewService.readInput(input, request.signal);
      const pixels = await previewService.schedule(
        () => previewer.renderFirstPage(bytes, area),
        request.signal,
      );
      return previewService.thumbnailFromPixels(pixels, { ...request, area, cropPosition: 'top' });
    },
  };
}
