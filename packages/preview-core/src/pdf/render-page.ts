import { PreviewError } from '../errors.js';
import type { Area } from '../image/area.js';
import type { Rectangle } from '../image/geometry.js';
import type { RawPixels } from '../image/render-image.js';
import type { OpenedPdf } from './open-pdf.js';
import { planPageRender, thumbnailRegion } from './render-scale.js';

/** Options of {@link renderPage}. */
export interface RenderPageOptions {
  /**
   * Draw only the part a top-cropped thumbnail of the area keeps (the pixels returned are then that
   * part, ready for the same thumbnail plan): less to rasterise and to hand to sharp.
   */
  readonly thumbnailOnly?: boolean;
}

/**
 * Rasterises one page (0-based `pageIndex`) with mupdf on a white background, annotations included, at
 * the zoom that covers `area` without upscaling and within `maxPixels`. The pixels are copied out of
 * mupdf's memory, ready for sharp's raw input (no PNG round trip).
 * @throws {PreviewError} `UNREADABLE_INPUT` when the page has no area or cannot be drawn.
 */
export function renderPage(
  opened: OpenedPdf,
  pageIndex: number,
  area: Area,
  maxPixels: number,
  options: RenderPageOptions = {},
): RawPixels {
  const { mupdf, document } = opened;
  const page = document.loadPage(pageIndex);
  try {
    const [x0, y0, x1, y1] = page.getBounds();
    const size = { width: Math.abs(x1 - x0), height: Math.abs(y1 - y0) };
    if (!(size.width >= 1 && size.height >= 1)) {
      throw new PreviewError(
        'UNREADABLE_INPUT',
        `expected page ${pageIndex + 1} to have a size but its box is ${size.width}x${size.height} points`,
      );
    }
    const plan = planPageRender(size, area, maxPixels);
    const matrix = mupdf.Matrix.scale(plan.scale, plan.scale);
    const region = options.thumbnailOnly ? thumbnailRegion(plan, area) : undefined;
    const pixmap =
      region === undefined
        ? page.toPixmap(matrix, mupdf.ColorSpace.DeviceRGB, false, true)
        : drawRegion(opened, page, matrix, [x0, y0, x1, y1], region);
    try {
      return copyPixels(pixmap);
    } finally {
      pixmap.destroy();
    }
  } catch (error) {
    if (error instanceof PreviewError) throw error;
    // mupdf's own message stays in `cause`, for logs.
    throw new PreviewError(
      'UNREADABLE_INPUT',
      `expected a drawable PDF page but page ${pageIndex + 1} is too damaged to draw`,
      { cause: error },
    );
  } finally {
    page.destroy();
  }
}

type MupdfPage = ReturnType<OpenedPdf['document']['loadPage']>;
type MupdfPixmap = ReturnType<MupdfPage['toPixmap']>;

/**
 * What `toPixmap` does (white page, annotations and widgets drawn), for the `region` (in pixels from
 * the top-left corner of the whole render) only.
 */
function drawRegion(
  opened: OpenedPdf,
  page: MupdfPage,
  matrix: [number, number, number, number, number, number],
  bounds: [number, number, number, number],
  region: Rectangle,
): MupdfPixmap {
  const { mupdf } = opened;
  // mupdf rounds the transformed page box outwards; the region is measured from that corner.
  const originX = Math.floor(bounds[0] * matrix[0] + 0.001);
  const originY = Math.floor(bounds[1] * matrix[3] + 0.001);
  const pixmap = new mupdf.Pixmap(
    mupdf.ColorSpace.DeviceRGB,
    [
      originX + region.left,
      originY + region.top,
      originX + region.left + region.width,
      originY + region.top + region.height,
    ],
    false,
  );
  try {
    pixmap.clear(255);
    const device = new mupdf.DrawDevice(mupdf.Matrix.identity, pixmap);
    try {
      page.run(device, matrix);
      device.close();
    } finally {
      device.destroy();
    }
    return pixmap;
  } catch (error) {
    pixmap.destroy();
    throw error;
  }
}

interface PixmapLike {
  getWidth(): number;
  getHeight(): number;
  getStride(): number;
  getNumberOfComponents(): number;
  getPixels(): Uint8ClampedArray;
}

function copyPixels(pixmap: PixmapLike): RawPixels {
  const width = pixmap.getWidth();
  const height = pixmap.getHeight();
  const channels = pixmap.getNumberOfComponents() as RawPixels['channels'];
  const stride = pixmap.getStride();
  const samples = pixmap.getPixels();
  const rowBytes = width * channels;
  // Its own ArrayBuffer (never a slice of a shared slab), so it can be moved to another thread.
  const data = Buffer.allocUnsafeSlow(rowBytes * height);
  if (stride === rowBytes) {
    data.set(samples.subarray(0, rowBytes * height));
  } else {
    for (let row = 0; row < height; row += 1) {
      data.set(samples.subarray(row * stride, row * stride + rowBytes), row * rowBytes);
    }
  }
  return { data, width, height, channels };
}
