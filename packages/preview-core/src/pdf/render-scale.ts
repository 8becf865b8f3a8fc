import type { Area } from '../image/area.js';
import { MINIMUM_RESOLUTION, type Size } from '../image/geometry.js';

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
  let scale = Math.max(neededScale(page.width, area.width), neededScale(page.height, area.height));
  const pixels = page.width * page.height * scale * scale;
  if (pixels > maxPixels) scale *= Math.sqrt(maxPixels / pixels);
  const width = Math.max(1, Math.floor(page.width * scale));
  const height = Math.max(1, Math.floor(page.height * scale));
  return { scale, width, height };
}
