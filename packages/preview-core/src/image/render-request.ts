import { PreviewError } from '../errors.js';
import type { PreviewLimits } from '../limits/preview-limits.js';
import { type Area, assertAreaWithinLimit, parseArea } from './area.js';
import { planCrop, planFit, type RenderPlan } from './geometry.js';
import type { OutputFormat, RenderOptions } from './image-options.js';
import { assertPixelsWithinLimit, type ImageInfo, inspectImage } from './inspect-image.js';
import { chooseOutputFormat } from './output-format.js';
import { type RawPixels, type RenderedImage, renderImage } from './render-image.js';

/**
 * Parses area text (or takes a parsed area) and checks it against the maximum output side.
 * @throws {PreviewError} `INVALID_AREA` for malformed text; `OUTPUT_TOO_LARGE` past `maxOutputSide`.
 */
export function resolveArea(area: string | Area, maxOutputSide: number): Area {
  const parsed = typeof area === 'string' ? parseArea(area) : area;
  assertAreaWithinLimit(parsed, maxOutputSide);
  return parsed;
}

function planFor(
  options: RenderOptions,
  source: { width: number; height: number },
  maxOutputSide: number,
): RenderPlan {
  const plan =
    options.kind === 'thumbnail' || options.crop
      ? planCrop(source, options.area, options.cropPosition)
      : planFit(source, options.area);
  assertAreaWithinLimit(plan.canvas, maxOutputSide, 'output');
  return plan;
}

/** What a render of encoded bytes will produce, decided from the header alone. */
export interface ImageRenderPlan {
  readonly source: ImageInfo;
  readonly format: OutputFormat;
  readonly animated: boolean;
  readonly plan: RenderPlan;
}

/**
 * Decides a render of encoded image bytes from their header, without decoding pixels: output format,
 * geometry and every limit a render would check first.
 * @throws {PreviewError} `UNREADABLE_INPUT`, `INPUT_TOO_LARGE`, `TOO_MANY_PIXELS`, `OUTPUT_TOO_LARGE`,
 * `INVALID_OPTION` (gif output for other input).
 */
export async function planImageBytes(
  bytes: Uint8Array,
  options: RenderOptions,
  limits: PreviewLimits,
): Promise<ImageRenderPlan> {
  const source = await inspectImage(bytes, limits);
  const format = chooseOutputFormat(options.kind, source.format, options.outputFormat);
  const animated = format === 'gif' && source.frames > 1;
  assertPixelsWithinLimit(source, limits.maxInputPixels, animated);
  return { source, format, animated, plan: planFor(options, source, limits.maxOutputSide) };
}

/**
 * Renders encoded image bytes (png, jpeg, gif, webp, svg, tiff, avif) as a preview or thumbnail, without
 * queueing: checks the header first ({@link planImageBytes}), then decodes only what the output needs.
 * @throws {PreviewError} the codes of {@link planImageBytes}, and `RENDER_TIMEOUT`.
 */
export async function renderImageBytes(
  bytes: Uint8Array,
  options: RenderOptions,
  limits: PreviewLimits,
): Promise<RenderedImage> {
  const { source, format, animated, plan } = await planImageBytes(bytes, options, limits);
  return renderImage({
    input: bytes,
    source,
    plan,
    format,
    quality: options.quality,
    shape: options.kind === 'thumbnail' ? options.shape : 'rectangular',
    animated,
    maxInputPixels: limits.maxInputPixels,
    timeoutSeconds: limits.renderTimeoutSeconds,
  });
}

/**
 * Renders uncompressed pixels (e.g. a PDF page rendered by mupdf) with the same pipeline, without
 * queueing. Output defaults to jpeg; gif is refused.
 * @throws {PreviewError} `INVALID_OPTION` when `data` does not hold width x height x channels bytes
 * or gif is asked; `TOO_MANY_PIXELS`; `OUTPUT_TOO_LARGE`; `RENDER_TIMEOUT`.
 */
export async function renderRawPixels(
  pixels: RawPixels,
  options: RenderOptions,
  limits: PreviewLimits,
): Promise<RenderedImage> {
  const { width, height, channels } = pixels;
  const expected = width * height * channels;
  if (!(width > 0 && height > 0) || pixels.data.byteLength !== expected) {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected raw pixels of ${width}x${height}x${channels} = ${expected} bytes but received ${pixels.data.byteLength}`,
    );
  }
  const info = { format: 'png', width, height, frames: 1 } as const;
  assertPixelsWithinLimit(info, limits.maxInputPixels, false);
  return renderImage({
    input: pixels,
    source: info,
    plan: planFor(options, info, limits.maxOutputSide),
    format: chooseOutputFormat(options.kind, 'raw', options.outputFormat),
    quality: options.quality,
    shape: options.kind === 'thumbnail' ? options.shape : 'rectangular',
    animated: false,
    maxInputPixels: limits.maxInputPixels,
    timeoutSeconds: limits.renderTimeoutSeconds,
  });
}
