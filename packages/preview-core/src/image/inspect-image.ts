import sharp, { type Metadata } from 'sharp';
import { PreviewError } from '../errors.js';
import type { Size } from './geometry.js';
import { INPUT_FORMATS, type InputFormat } from './output-format.js';
import { assertSvgIsSelfContained } from './svg-guard.js';

/** What the header of an input image says, read without decoding its pixels. */
export interface ImageInfo extends Size {
  readonly format: InputFormat;
  /** Frames of an animated image, 1 otherwise. */
  readonly frames: number;
}

/** What the refusals say was expected. */
export const EXPECTED_IMAGE = 'a png, jpeg, gif, webp, svg, tiff or avif image';

function isInputFormat(format: string): format is InputFormat {
  return (INPUT_FORMATS as readonly string[]).includes(format);
}

/**
 * The accepted format sharp's header says, else a refusal naming what came. sharp calls AVIF `heif`
 * with `av1` compression; other HEIF (HEVC, i.e. HEIC) cannot be decoded here, so it is refused.
 */
function inputFormatOf(metadata: Metadata): InputFormat {
  if (metadata.format === 'heif') {
    if (metadata.compression === 'av1') return 'avif';
    const compression = metadata.compression ?? 'unknown';
    throw new PreviewError(
      'UNREADABLE_INPUT',
      `expected ${EXPECTED_IMAGE} but received a HEIF image compressed with ${compression}${compression === 'hevc' ? ' (HEIC)' : ''}, a format this server cannot decode`,
      { details: { format: 'heif', compression } },
    );
  }
  if (isInputFormat(metadata.format)) return metadata.format;
  throw new PreviewError(
    'UNREADABLE_INPUT',
    `expected ${EXPECTED_IMAGE} but received a ${metadata.format} image, a format this server does not support`,
    {
      details: { format: metadata.format },
    },
  );
}

/**
 * Reads format, size (after EXIF orientation) and frame count from the header of `bytes`.
 * @throws {PreviewError} `UNREADABLE_INPUT` for empty, corrupt or unsupported input and for SVG
 * declaring external entities; `INPUT_TOO_LARGE` past `maxInputBytes`.
 */
export async function inspectImage(bytes: Uint8Array, limits: { maxInputBytes: number }): Promise<ImageInfo> {
  if (bytes.byteLength === 0) {
    throw new PreviewError('UNREADABLE_INPUT', `expected ${EXPECTED_IMAGE} but received 0 bytes`);
  }
  if (bytes.byteLength > limits.maxInputBytes) {
    throw new PreviewError(
      'INPUT_TOO_LARGE',
      `expected an input of at most ${limits.maxInputBytes} bytes but received ${bytes.byteLength}`,
      { details: { bytes: bytes.byteLength, maxInputBytes: limits.maxInputBytes } },
    );
  }
  assertSvgIsSelfContained(bytes);
  let metadata: Metadata;
  try {
    // failOn 'none', as the render: a GIF cut short still says its size and the frames it holds.
    metadata = await sharp(bytes, { limitInputPixels: false, failOn: 'none' }).metadata();
  } catch (error) {
    throw new PreviewError(
      'UNREADABLE_INPUT',
      `expected ${EXPECTED_IMAGE} but received ${bytes.byteLength} bytes that could not be read as one`,
      { cause: error },
    );
  }
  const format = inputFormatOf(metadata);
  const oriented = metadata.autoOrient ?? metadata;
  if (!(oriented.width > 0 && oriented.height > 0)) {
    throw new PreviewError('UNREADABLE_INPUT', `expected ${EXPECTED_IMAGE} with a size but received none`);
  }
  return {
    format,
    width: oriented.width,
    height: oriented.height,
    frames: Math.max(1, metadata.pages ?? 1),
  };
}

/**
 * Refuses an input whose decoded size would exceed `maxInputPixels` (all frames when `allFrames`).
 * @throws {PreviewError} `TOO_MANY_PIXELS` with the declared size and the limit.
 */
export function assertPixelsWithinLimit(info: ImageInfo, maxInputPixels: number, allFrames: boolean): void {
  const frames = allFrames ? info.frames : 1;
  const pixels = info.width * info.height * frames;
  if (pixels > maxInputPixels) {
    const framesText = frames > 1 ? ` x ${frames} frames` : '';
    throw new PreviewError(
      'TOO_MANY_PIXELS',
      `expected an image of at most ${maxInputPixels} pixels but received ${info.width}x${info.height}${framesText} = ${pixels} pixels`,
      { details: { width: info.width, height: info.height, frames, pixels, maxInputPixels } },
    );
  }
}
