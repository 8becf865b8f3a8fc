import type { Area } from './area.js';

/** Smallest side of any output, in pixels (the original service's `minimum_resolution`). */
export const MINIMUM_RESOLUTION = 80;

/** A width and a height in pixels. */
export interface Size {
  readonly width: number;
  readonly height: number;
}

/** Where a crop is taken from: the middle, or the top edge (horizontally centred), used for pages. */
export type CropPosition = 'centre' | 'top';

/** A rectangle inside an image. */
export interface Rectangle extends Size {
  readonly left: number;
  readonly top: number;
}

/** Pixels of border to add on each side so an image fills its canvas. */
export interface Borders {
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly left: number;
}

/**
 * How to turn a source into an output: scale the whole source to `scaled` (aspect kept, or the
 * source size when no scaling), cut `extract` out of it when set, then add `borders` to reach `canvas`.
 */
export interface RenderPlan {
  readonly scaled: Size;
  readonly extract: Rectangle | undefined;
  readonly borders: Borders;
  readonly canvas: Size;
}

function targetSide(sourceSide: number, requestedSide: number): number {
  const wanted = Math.max(requestedSide === 0 ? sourceSide : requestedSide, MINIMUM_RESOLUTION);
  return sourceSide < MINIMUM_RESOLUTION && wanted > 2 * sourceSide ? MINIMUM_RESOLUTION : wanted;
}

/**
 * The output size for a source and a requested area: 0 takes the source's side, sides below 80 are
 * raised to 80, and a side of a source smaller than 80 asked to grow more than twice is kept at 80.
 * A width-only area keeps the source's aspect ratio: the height follows the width chosen so.
 */
export function targetSize(source: Size, requested: Area): Size {
  if (requested.widthOnly === true) {
    const width = targetSide(source.width, requested.width);
    return { width, height: Math.max(1, Math.round((source.height * width) / source.width)) };
  }
  return {
    width: targetSide(source.width, requested.width),
    height: targetSide(source.height, requested.height),
  };
}

function scaleBy(source: Size, factor: number, exact: 'width' | 'height', target: Size): Size {
  if (exact === 'width') {
    return { width: target.width, height: Math.max(1, Math.trunc(source.height * factor)) };
  }
  return { width: Math.max(1, Math.trunc(source.width * factor)), height: target.height };
}

/** Scales `source` (up or down) to the largest size that fits inside `target`, keeping its aspect. */
export function fitInside(source: Size, target: Size): Size {
  const byWidth = target.width / source.width;
  const byHeight = target.height / source.height;
  return byWidth <= byHeight
    ? scaleBy(source, byWidth, 'width', target)
    : scaleBy(source, byHeight, 'height', target);
}

/** Scales `source` (up or down) to the smallest size that covers `target`, keeping its aspect. */
export function coverTarget(source: Size, target: Size): Size {
  const byWidth = target.width / source.width;
  const byHeight = target.height / source.height;
  const scaled =
    byWidth >= byHeight
      ? scaleBy(source, byWidth, 'width', target)
      : scaleBy(source, byHeight, 'height', target);
  return { width: Math.max(scaled.width, target.width), height: Math.max(scaled.height, target.height) };
}

/** Borders that centre `image` on `canvas`; an odd spare pixel goes to the right or the bottom. */
export function centreBorders(image: Size, canvas: Size): Borders {
  const spareWidth = Math.max(0, canvas.width - image.width);
  const spareHeight = Math.max(0, canvas.height - image.height);
  const left = Math.floor(spareWidth / 2);
  const top = Math.floor(spareHeight / 2);
  return { top, left, right: spareWidth - left, bottom: spareHeight - top };
}

/** The rectangle of size `target` cut out of `scaled`: centred, or from the top and centred horizontally. */
export function cropRectangle(scaled: Size, target: Size, position: CropPosition): Rectangle {
  const left = Math.floor(scaled.width / 2) - Math.floor(target.width / 2);
  const top = position === 'top' ? 0 : Math.floor(scaled.height / 2) - Math.floor(target.height / 2);
  return { left: Math.max(0, left), top: Math.max(0, top), width: target.width, height: target.height };
}

function isAtMostHalf(source: Size, target: Size): boolean {
  return source.width <= target.width / 2 && source.height <= target.height / 2;
}

/**
 * Plan for thumbnails and cropped previews. A source at least half the requested size is scaled to
 * cover the target and cropped; a source at most half the target keeps its size; anything between is
 * fitted. Whatever is smaller than the target is centred on a canvas of the target size.
 */
export function planCrop(source: Size, requested: Area, position: CropPosition = 'centre'): RenderPlan {
  const canvas = targetSize(source, requested);
  const raw = { width: requested.width || source.width, height: requested.height || source.height };
  if (source.width >= raw.width / 2 && source.height >= raw.height / 2) {
    const scaled = coverTarget(source, canvas);
    const extract = cropRectangle(scaled, canvas, position);
    return { scaled, extract, borders: centreBorders(canvas, canvas), canvas };
  }
  const scaled = isAtMostHalf(source, canvas) ? source : fitInside(source, canvas);
  return { scaled, extract: undefined, borders: centreBorders(scaled, canvas), canvas };
}

/**
 * Plan for previews without crop: the whole source is kept, scaled to fit the target (a source of at
 * least 80 pixels and at most half the target keeps its size), then centred with borders.
 */
export function planFit(source: Size, requested: Area): RenderPlan {
  const canvas = targetSize(source, requested);
  const keepsSize =
    source.width >= MINIMUM_RESOLUTION && source.height >= MINIMUM_RESOLUTION && isAtMostHalf(source, canvas);
  const scaled = keepsSize ? source : fitInside(source, canvas);
  return { scaled, extract: undefined, borders: centreBorders(scaled, canvas), canvas };
}
