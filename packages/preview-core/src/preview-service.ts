import sharp from 'sharp';
import { z } from 'zod';
import { PreviewError } from './errors.js';
import {
  type ImagePreviewRequest,
  type ImageThumbnailRequest,
  imagePreviewRequestSchema,
  imageThumbnailRequestSchema,
  parseRequest,
  type RenderOptions,
} from './image/image-options.js';
import type { RawPixels, RenderedImage } from './image/render-image.js';
import { planImageBytes, renderImageBytes, renderRawPixels, resolveArea } from './image/render-request.js';
import { type PreviewLimits, previewLimitsSchema } from './limits/preview-limits.js';
import { createRenderQueue, type RenderQueueStats } from './limits/render-queue.js';
import type { StoredFileRef, StoredFileSource } from './storage/stored-file-source.js';

const storedFileSourceSchema = z.custom<StoredFileSource>(
  (value) =>
    typeof value === 'object' && value !== null && typeof (value as StoredFileSource).read === 'function',
  { message: 'expected a StoredFileSource with a read(ref, signal) method' },
);

/** Options of {@link createPreviewService}, parsed once. */
export const previewServiceOptionsSchema = z.strictObject({
  /** Limits; every one has a default (see {@link previewLimitsSchema}). */
  limits: previewLimitsSchema.prefault({}),
  /** Where stored files are read from; without it only uploaded bytes can be previewed. */
  storedFiles: storedFileSourceSchema.optional(),
});

/** Options of {@link createPreviewService} as a caller writes them. */
export type PreviewServiceOptions = z.input<typeof previewServiceOptionsSchema>;

/** The bytes to preview: uploaded bytes, or a stored file read through the service's source. */
export type PreviewInput = Uint8Array | { readonly storedFile: StoredFileRef };

/** Health figures of a preview service. */
export type PreviewServiceStats = RenderQueueStats;

/** What a preview or thumbnail would be, found from the input's header without rendering it. */
export interface PlannedImage {
  readonly format: RenderedImage['format'];
  readonly width: number;
  readonly height: number;
  /** Frames of the output: more than 1 only for animated GIF output. */
  readonly frames: number;
}

/** Image previews and thumbnails with bounded concurrency; see {@link createPreviewService}. */
export interface PreviewService {
  readonly limits: PreviewLimits;
  /**
   * A preview: fitted with borders (transparent in png, black in jpeg), or cropped with `crop`.
   * Defaults to the source's format (svg and webp give png).
   * @throws {PreviewError} `INVALID_AREA`, `INVALID_OPTION`, `UNREADABLE_INPUT`, `INPUT_TOO_LARGE`,
   * `TOO_MANY_PIXELS`, `OUTPUT_TOO_LARGE`, `NOT_FOUND`, `STORAGE_UNAVAILABLE`, `BUSY`, `RENDER_TIMEOUT`.
   */
  imagePreview(input: PreviewInput, request: ImagePreviewRequest): Promise<RenderedImage>;
  /**
   * A thumbnail: always cropped, optionally rounded; defaults to jpeg.
   * @throws {PreviewError} the codes of {@link PreviewService.imagePreview}.
   */
  imageThumbnail(input: PreviewInput, request: ImageThumbnailRequest): Promise<RenderedImage>;
  /**
   * A thumbnail of uncompressed pixels, e.g. a PDF page (use `cropPosition: 'top'`).
   * @throws {PreviewError} `INVALID_OPTION`, `TOO_MANY_PIXELS`, `OUTPUT_TOO_LARGE`, `BUSY`, `RENDER_TIMEOUT`.
   */
  thumbnailFromPixels(pixels: RawPixels, request: ImageThumbnailRequest): Promise<RenderedImage>;
  /**
   * What {@link PreviewService.imagePreview} would answer, without rendering and outside the render
   * queue: reads the input, then checks its header, the options and the limits (e.g. for HTTP HEAD).
   * @throws {PreviewError} the codes of `imagePreview` except `BUSY` and `RENDER_TIMEOUT`.
   */
  planImagePreview(input: PreviewInput, request: ImagePreviewRequest): Promise<PlannedImage>;
  /**
   * What {@link PreviewService.imageThumbnail} would answer, without rendering (see `planImagePreview`).
   * @throws {PreviewError} the codes of `imageThumbnail` except `BUSY` and `RENDER_TIMEOUT`.
   */
  planImageThumbnail(input: PreviewInput, request: ImageThumbnailRequest): Promise<PlannedImage>;
  /**
   * Reads the bytes of an input: uploaded bytes as they are, stored files through the source.
   * @throws {PreviewError} `NOT_FOUND`, `STORAGE_UNAVAILABLE`, `INPUT_TOO_LARGE`, `INVALID_OPTION`.
   */
  readInput(input: PreviewInput, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * Runs CPU-heavy work in the shared render queue (for other renderers in this package).
   * @throws {PreviewError} `BUSY` when the queue is full.
   */
  schedule<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /**
   * Fails now when a render asked at this moment would be refused; call it before reading a large
   * upload that would otherwise be read for nothing.
   * @throws {PreviewError} `BUSY` with `details.retryAfterSeconds`.
   */
  assertCapacity(): void;
  /** Renders running and waiting, for health reports. */
  stats(): PreviewServiceStats;
}

/**
 * The render options and signal of a thumbnail request.
 * @throws {PreviewError} `INVALID_OPTION` naming the option.
 */
export function thumbnailOptions(request: ImageThumbnailRequest, maxOutputSide: number) {
  const parsed = parseRequest(imageThumbnailRequestSchema, request);
  const options: RenderOptions = {
    kind: 'thumbnail',
    area: resolveArea(parsed.area, maxOutputSide),
    quality: parsed.quality,
    outputFormat: parsed.outputFormat,
    crop: true,
    cropPosition: parsed.cropPosition,
    shape: parsed.shape,
  };
  return { options, signal: parsed.signal };
}

function previewOptions(request: ImagePreviewRequest, maxOutputSide: number) {
  const parsed = parseRequest(imagePreviewRequestSchema, request);
  const options: RenderOptions = {
    kind: 'preview',
    area: resolveArea(parsed.area, maxOutputSide),
    quality: parsed.quality,
    outputFormat: parsed.outputFormat,
    crop: parsed.crop,
    cropPosition: 'centre',
    shape: 'rectangular',
  };
  return { options, signal: parsed.signal };
}

/**
 * Creates the preview service. Turns sharp's operation cache off (it only helps repeated work on the
 * same file and costs memory per concurrent render).
 * @throws {PreviewError} `INVALID_OPTION` when an option or limit is malformed.
 */
export function createPreviewService(serviceOptions: PreviewServiceOptions = {}): PreviewService {
  const { limits, storedFiles } = parseRequest(previewServiceOptionsSchema, serviceOptions);
  sharp.cache(false);
  const queue = createRenderQueue(limits);

  const readInput = async (input: PreviewInput, signal?: AbortSignal): Promise<Uint8Array> => {
    if (input instanceof Uint8Array) return input;
    if (!storedFiles) {
      throw new PreviewError(
        'STORAGE_UNAVAILABLE',
        'no stored-file source is configured for this preview service',
      );
    }
    return storedFiles.read(input.storedFile, signal);
  };

  const renderInput = async (input: PreviewInput, options: RenderOptions, signal?: AbortSignal) => {
    const bytes = await readInput(input, signal);
    return queue.run(() => renderImageBytes(bytes, options, limits), signal);
  };

  const planInput = async (
    input: PreviewInput,
    options: RenderOptions,
    signal?: AbortSignal,
  ): Promise<PlannedImage> => {
    const { format, animated, plan, source } = await planImageBytes(
      await readInput(input, signal),
      options,
      limits,
    );
    const { width, height } = plan.canvas;
    return { format, width, height, frames: animated ? source.frames : 1 };
  };

  return {
    limits,
    async imagePreview(input, request) {
      const { options, signal } = previewOptions(request, limits.maxOutputSide);
      return renderInput(input, options, signal);
    },
    async imageThumbnail(input, request) {
      const { options, signal } = thumbnailOptions(request, limits.maxOutputSide);
      return renderInput(input, options, signal);
    },
    async thumbnailFromPixels(pixels, request) {
      const { options, signal } = thumbnailOptions(request, limits.maxOutputSide);
      return queue.run(() => renderRawPixels(pixels, options, limits), signal);
    },
    async planImagePreview(input, request) {
      const { options, signal } = previewOptions(request, limits.maxOutputSide);
      return planInput(input, options, signal);
    },
    async planImageThumbnail(input, request) {
      const { options, signal } = thumbnailOptions(request, limits.maxOutputSide);
      return planInput(input, options, signal);
    },
    readInput,
    schedule: (task, signal) => queue.run(task, signal),
    assertCapacity: () => queue.assertCapacity(),
    stats: () => queue.stats(),
  };
}
