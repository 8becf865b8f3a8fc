import { PreviewError } from '../errors.js';

/** A requested output size; 0 on a side means "the source's own size on that side". */
export interface Area {
  readonly width: number;
  readonly height: number;
  /**
   * Extension (`200x`): the height follows the source's aspect ratio at the requested width, and
   * `height` is ignored. Without it the original's rules hold (`200x0` keeps the source's height).
   */
  readonly widthOnly?: boolean;
}

const AREA_PATTERN = /^([0-9]{1,9})x([0-9]{0,9})$/;

/**
 * Parses `area` text written `<width>x<height>` (digits and a lower-case `x`, e.g. `256x256`, `0x80`),
 * or `<width>x` for the width-only extension (`200x`).
 * Sides longer than nine digits are refused here; the configured maximum side is checked later.
 * @throws {PreviewError} `INVALID_AREA` when the text has another shape.
 */
export function parseArea(text: string): Area {
  const match = AREA_PATTERN.exec(text);
  if (!match) {
    throw new PreviewError(
      'INVALID_AREA',
      `expected \`area\` like 256x256 (<width>x<height>, digits only, 0 = source size) but received ${JSON.stringify(text)}`,
      { details: { received: text } },
    );
  }
  if (match[2] === '') return { width: Number(match[1]), height: 0, widthOnly: true };
  return { width: Number(match[1]), height: Number(match[2]) };
}

/**
 * Checks that neither side of `area` exceeds `maxSide`.
 * @throws {PreviewError} `OUTPUT_TOO_LARGE` naming the side and the limit.
 */
export function assertAreaWithinLimit(area: Area, maxSide: number, what = 'requested area'): void {
  const largest = Math.max(area.width, area.height);
  if (largest > maxSide) {
    throw new PreviewError(
      'OUTPUT_TOO_LARGE',
      `expected each side of the ${what} to be at most ${maxSide} pixels but received ${area.width}x${area.height}`,
      { details: { width: area.width, height: area.height, maxSide } },
    );
  }
}
