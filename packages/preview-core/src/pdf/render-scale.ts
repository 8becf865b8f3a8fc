import type { Area } from '../image/area.js';
import { MINIMUM_RESOLUTION, planCrop, type Rectangle, type Size } from '../image/geometry.js';

/** How to rasterise a page: the zoom from PDF points and the resulting pixel size. */
export interface PageRender {
  readonly scale: number;
  readonly width: number;
  readonly height: number;
}

function neededScale(pageSide: number, requestedSide: number): number {
  const wanted = requestedSide === 0 ? pageSide : Math.max(requestedSide, MINIMUM_RESOLUTION);
  return wanted / pageSide;
}

/**
 * The zoom at which a page of `page` points covers `area` (0 on a side: the page's own size at 72 DPI)
 * without upscaling afterwards, reduced when the render would exceed `maxPixels`.
 */
export function planPageRender(page: Size, area: Area, maxPixels: number): PageRender {
  const heightScale = area.widthOnly === true ? 0 : neededScale(page.height, area.height);
  let scale = Math.max(neededScale(page.width, area.width), heightScale);
  const pixels = page.width * page.height * scale * scale;
  if (pixels > maxPixels) scale *= Math.sqrt(maxPixels / pixels);
  const width = Math.max(1, Math.floor(page.width * scale));
  const height = Math.max(1, Math.floor(page.height * scale));
  return { scale, width, height };
}

/**
 * The part of a page rendered at `rendered` pixels that a top-cropped thumbnail of `area` keeps (see
 * `planCrop`), rounded outwards to whole pixels; undefined when the
 * thumbnail keeps (nearly) all of it, or when a side of `area` is 0 (the output then takes the
 * source's own side, so the whole render is needed).
 */
export function thumbnailRegion(rendered: Size, area: Area): Rectangle | undefined {
  if (area.width === 0 || area.height === 0) return undefined;
  const plan = planCrop(rendered, area, 'top');
  if (plan.extract === undefined) return undefined;
  const xRatio = rendered.width / plan.scaled.width;
  const yRatio = rendered.height / plan.scaled.height;
  const left = Math.max(0, Math.floor(plan.extract.left * xRatio));
  const right = Math.min(rendered.width, Math.ceil((plan.extract.left + plan.extract.width) * xRatio));
  const bottom = Math.min(rendered.height, Math.ceil(plan.extract.height * yRatio));
  const region = { left, top: 0, width: right - left, height: bottom };
  const kept = (region.width * region.height) / (rendered.width * rendered.height);
  return kept > 0.9 ? undefined : region;
}
