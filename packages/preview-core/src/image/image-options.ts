import { z } from 'zod';
import { parseOptions } from '../options/parse-options.js';
import type { Area } from './area.js';
import type { CropPosition } from './geometry.js';

/** Quality names accepted by the API, lowest to highest. */
export const IMAGE_QUALITIES = ['lowest', 'low', 'medium', 'high', 'highest'] as const;
/** A quality name; it changes jpeg, webp and avif output (png and gif are lossless or palette). */
export type ImageQuality = (typeof IMAGE_QUALITIES)[number];

/** Encoder quality (1-100) used for each {@link ImageQuality} by jpeg, webp and avif. */
export const JPEG_QUALITY: Readonly<Record<ImageQuality, number>> = {
  lowest: 1,
  low: 15,
  medium: 50,
  high: 80,
  highest: 95,
};

/**
 * Output formats an image preview or thumbnail can have. jpeg, png and gif are the original service's;
 * webp and avif are this project's opt-in extension (asked for explicitly, never a default).
 */
export const OUTPUT_FORMATS = ['jpeg', 'png', 'gif', 'webp', 'avif'] as const;
/** An output format. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Thumbnail shapes. */
export const THUMBNAIL_SHAPES = ['rectangular', 'rounded'] as const;
/** A thumbnail shape: `rounded` keeps only the ellipse inscribed in the output. */
export type ThumbnailShape = (typeof THUMBNAIL_SHAPES)[number];

const areaSchema = z.union([
  z.string(),
  z.strictObject({
    width: z.number().int().min(0),
    height: z.number().int().min(0),
    widthOnly: z.boolean().optional(),
  }),
]);

const commonFields = {
  /**
   * `WxH` text or a parsed {@link Area}; 0 on a side means the source's size. `W` followed by `x`
   * alone (`200x`) is the width-only extension: the height follows the source's aspect ratio.
   */
  area: areaSchema,
  /** @default 'medium' */
  quality: z.enum(IMAGE_QUALITIES).default('medium'),
  /** Omitted: the default of the operation (thumbnails jpeg, previews the source's format). */
  outputFormat: z.enum(OUTPUT_FORMATS).optional(),
  /** Aborts a render still waiting in the queue. */
  signal: z.instanceof(AbortSignal).optional(),
};

/** Options of an image preview. */
export const imagePreviewRequestSchema = z.strictObject({
  ...commonFields,
  /** True cuts the image to the area; false fits it and adds borders. @default false */
  crop: z.boolean().default(false),
});

/** Options of a thumbnail (always cropped). */
export const imageThumbnailRequestSchema = z.strictObject({
  ...commonFields,
  /** @default 'rectangular' */
  shape: z.enum(THUMBNAIL_SHAPES).default('rectangular'),
  /** Where the crop is taken from; `top` is for document pages. @default 'centre' */
  cropPosition: z.enum(['centre', 'top']).default('centre'),
});

/** Image preview options as a caller writes them. */
export type ImagePreviewRequest = z.input<typeof imagePreviewRequestSchema>;
/** Thumbnail options as a caller writes them. */
export type ImageThumbnailRequest = z.input<typeof imageThumbnailRequestSchema>;

/** Options of one render, every default applied and the area parsed. */
export interface RenderOptions {
  readonly kind: 'preview' | 'thumbnail';
  readonly area: Area;
  readonly quality: ImageQuality;
  readonly outputFormat: OutputFormat | undefined;
  readonly crop: boolean;
  readonly cropPosition: CropPosition;
  readonly shape: ThumbnailShape;
}

/**
 * Parses request options with `schema`.
 * @throws {PreviewError} `INVALID_OPTION` naming the option, what was expected and what came.
 */
export const parseRequest = parseOptions;
