import type { OutputFormat } from '@collab-suite/preview-core';

/** Formats whose encoder takes no quality: png is lossless, gif keeps the source's palette. */
const QUALITY_FREE: ReadonlySet<string> = new Set<OutputFormat>(['png', 'gif']);

/**
 * The options of a stored-file render that change its bytes, for its ETag and cache key: the output
 * format is resolved where the route alone decides it (thumbnails of every route are jpeg unless asked
 * otherwise; an image preview's default follows its source, unknown here), and `quality`, which only
 * the jpeg encoder reads, is left out for png and gif. So `?quality=low&output_format=png` and
 * `?quality=high&output_format=png` are one entry, as are a thumbnail with and without `output_format=jpeg`.
 */
export function bytesDecidingOptions<Options extends Record<string, string | boolean | undefined>>(
  name: Record<string, string>,
  options: Options,
): Record<string, string | boolean | undefined> {
  const thumbnail = name.kind === 'thumbnail' || name.route?.endsWith('-thumbnail') === true;
  const requested = options.outputFormat;
  const format = typeof requested === 'string' ? requested : thumbnail ? 'jpeg' : undefined;
  if (!('outputFormat' in options) && !('quality' in options)) return { ...options };
  const { quality, outputFormat: _requested, ...rest } = options;
  return {
    ...rest,
    outputFormat: format,
    ...(format !== undefined && QUALITY_FREE.has(format) ? {} : { quality }),
  };
}
