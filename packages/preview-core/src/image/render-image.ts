import sharp, { type Sharp } from 'sharp';
import { PreviewError } from '../errors.js';
import type { RenderPlan, Size } from './geometry.js';
import { type ImageQuality, JPEG_QUALITY, type OutputFormat, type ThumbnailShape } from './image-options.js';
import { EXPECTED_IMAGE } from './inspect-image.js';
import { ellipseMask, ellipseSurround } from './shape-masks.js';

/** An encoded image. `width` and `height` are those of one frame. */
export interface RenderedImage {
  readonly data: Buffer;
  readonly format: OutputFormat;
  readonly width: number;
  readonly height: number;
  /** Frames in the output: more than 1 only for animated GIF output. */
  readonly frames: number;
}

/** Uncompressed pixels, row by row, `channels` bytes per pixel (e.g. a rendered PDF page). */
export interface RawPixels {
  readonly data: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 2 | 3 | 4;
}

/** One render: where the pixels come from, what to do with them and how to encode them. */
export interface RenderJob {
  readonly input: Uint8Array | RawPixels;
  readonly source: Size;
  readonly plan: RenderPlan;
  readonly format: OutputFormat;
  readonly quality: ImageQuality;
  readonly shape: ThumbnailShape;
  readonly animated: boolean;
  readonly maxInputPixels: number;
  /** libvips stops the render after this many seconds of work (`RENDER_TIMEOUT`). */
  readonly timeoutSeconds: number;
}

const BLACK = { r: 0, g: 0, b: 0, alpha: 1 };
const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };

/**
 * `failOn: 'none'`: damaged pixel data (a truncated JPEG or PNG) shows what decodes, as browsers do;
 * the header was read whole and checked against the pixel limit before, and `limitInputPixels` and
 * the timeout still hold.
 */
function openInput(job: RenderJob): Sharp {
  const common = { failOn: 'none', limitInputPixels: job.maxInputPixels } as const;
  if (job.input instanceof Uint8Array) {
    return sharp(job.input, { ...common, autoOrient: true, animated: job.animated });
  }
  const { data, width, height, channels } = job.input;
  return sharp(data, { ...common, raw: { width, height, channels } });
}

function hasBorders(plan: RenderPlan): boolean {
  const { top, right, bottom, left } = plan.borders;
  return top + right + bottom + left > 0;
}

function isWhole(plan: RenderPlan): boolean {
  const extract = plan.extract;
  return (
    extract === undefined ||
    (extract.left === 0 &&
      extract.top === 0 &&
      extract.width === plan.scaled.width &&
      extract.height === plan.scaled.height)
  );
}

function applyGeometry(image: Sharp, job: RenderJob): Sharp {
  const { plan } = job;
  const transparent = job.format !== 'jpeg';
  let result = image;
  if (plan.scaled.width !== job.source.width || plan.scaled.height !== job.source.height) {
    result = result.resize(plan.scaled.width, plan.scaled.height, { fit: 'fill' });
  }
  if (plan.extract && !isWhole(plan)) result = result.extract(plan.extract);
  if (transparent && (hasBorders(plan) || job.shape === 'rounded')) result = result.ensureAlpha();
  if (hasBorders(plan)) {
    result = result.extend({ ...plan.borders, background: transparent ? TRANSPARENT : BLACK });
  }
  if (job.shape === 'rounded') {
    result = transparent
      ? result.composite([{ input: ellipseMask(plan.canvas), blend: 'dest-in', tile: true }])
      : result.composite([{ input: ellipseSurround(plan.canvas, '#000') }]);
  }
  return result;
}

function encode(image: Sharp, job: RenderJob): Sharp {
  if (job.format === 'jpeg') {
    return image.flatten({ background: BLACK }).jpeg({ quality: JPEG_QUALITY[job.quality] });
  }
  if (job.format === 'png') return image.png();
  // Extensions: lossy with an alpha channel, at the quality a jpeg of the same request gets.
  if (job.format === 'webp') return image.webp({ quality: JPEG_QUALITY[job.quality] });
  if (job.format === 'avif') return image.avif({ quality: JPEG_QUALITY[job.quality] });
  return image.gif();
}

function describeFailure(error: unknown, job: RenderJob): PreviewError {
  const text = error instanceof Error ? error.message : String(error);
  const timedOut = /^timeout: (\d+)% complete/.exec(text);
  if (timedOut) {
    const progress = timedOut[1];
    return new PreviewError(
      'RENDER_TIMEOUT',
      `expected the image to render within the limit of ${job.timeoutSeconds} s but it was stopped at ${progress}% done; the input is too costly to render (e.g. heavy SVG filters or a huge GIF)`,
      { details: { timeoutSeconds: job.timeoutSeconds }, cause: error },
    );
  }
  if (/pixel limit/i.test(text)) {
    return new PreviewError('TOO_MANY_PIXELS', 'the input image has more pixels than the configured limit', {
      cause: error,
    });
  }
  // libvips' own message (e.g. "VipsJpeg: ...") stays in `cause`, for logs.
  return new PreviewError(
    'UNREADABLE_INPUT',
    `expected ${EXPECTED_IMAGE} but decoding failed: its data is damaged beyond what can be shown`,
    { cause: error },
  );
}

/**
 * Runs one render with sharp: orient, scale, crop, add borders, shape, flatten (jpeg) and encode, with
 * libvips' own timeout, which stops the work itself (a JavaScript timer could only stop waiting for it).
 * @throws {PreviewError} `UNREADABLE_INPUT` when the pixels cannot be decoded (truncated or corrupt
 * data); `TOO_MANY_PIXELS` when sharp's own pixel guard trips; `RENDER_TIMEOUT` past `timeoutSeconds`.
 */
export async function renderImage(job: RenderJob): Promise<RenderedImage> {
  try {
    const image = encode(applyGeometry(openInput(job), job), job).timeout({ seconds: job.timeoutSeconds });
    const { data, info } = await image.toBuffer({ resolveWithObject: true });
    const frames = info.pages ?? 1;
    return {
      data,
      format: job.format,
      width: job.plan.canvas.width,
      height: job.plan.canvas.height,
      frames: job.format === 'gif' ? frames : 1,
    };
  } catch (error) {
    throw describeFailure(error, job);
  }
}
