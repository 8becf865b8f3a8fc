import { PreviewError } from '../errors.js';
import type { OutputFormat } from './image-options.js';

/**
 * Image formats accepted as input: the five of the spec, and TIFF and AVIF, which the libvips bundled
 * with sharp decodes with fuzzed loaders (libtiff, libheif with the AV1 decoder). HEIC (HEIF with HEVC)
 * is not among them: prebuilt sharp has no HEVC decoder.
 */
export const INPUT_FORMATS = ['jpeg', 'png', 'gif', 'webp', 'svg', 'tiff', 'avif'] as const;
/** An accepted input format; svg is rasterised, never returned as svg. */
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** The format a preview gets when none is asked: the source's own (jpeg, png, gif), else png. */
export function defaultPreviewFormat(input: InputFormat): OutputFormat {
  if (input === 'jpeg' || input === 'gif') return input;
  return 'png';
}

/**
 * The output format of a render: the requested one, or the operation's default.
 * @throws {PreviewError} `INVALID_OPTION` when gif is asked for an input that is not a GIF.
 */
export function chooseOutputFormat(
  kind: 'preview' | 'thumbnail',
  input: InputFormat | 'raw',
  requested: OutputFormat | undefined,
): OutputFormat {
  if (requested === 'gif' && input !== 'gif') {
    throw new PreviewError(
      'INVALID_OPTION',
      `output_format gif is only available for GIF input, but the input is ${input === 'raw' ? 'not an image file' : `a ${input} image`}; ask for jpeg or png`,
      { details: { option: 'outputFormat', input } },
    );
  }
  if (requested) return requested;
  if (kind === 'thumbnail' || input === 'raw') return 'jpeg';
  return defaultPreviewFormat(input);
}
