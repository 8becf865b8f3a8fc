import { crc32 } from 'node:zlib';
import sharp from 'sharp';

/** RGBA colour of one pixel. */
export type Rgba = readonly [number, number, number, number];

/** Colours of the four quadrants of {@link quadrantImage}: top-left, top-right, bottom-left, bottom-right. */
export const QUADRANT_COLOURS = {
  topLeft: [255, 0, 0, 255],
  topRight: [0, 255, 0, 255],
  bottomLeft: [0, 0, 255, 255],
  bottomRight: [255, 255, 255, 255],
} as const satisfies Record<string, Rgba>;

function quadrantPixels(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const right = x >= width / 2;
      const bottom = y >= height / 2;
      const colour = bottom
        ? right
          ? QUADRANT_COLOURS.bottomRight
          : QUADRANT_COLOURS.bottomLeft
        : right
          ? QUADRANT_COLOURS.topRight
          : QUADRANT_COLOURS.topLeft;
      pixels.set(colour, (y * width + x) * 4);
    }
  }
  return pixels;
}

/** An image split in four coloured quadrants (see {@link QUADRANT_COLOURS}), encoded as `format`. */
export async function quadrantImage(
  width: number,
  height: number,
  format: 'png' | 'jpeg' | 'webp' | 'gif' | 'tiff' | 'avif' = 'png',
): Promise<Buffer> {
  const image = sharp(quadrantPixels(width, height), { raw: { width, height, channels: 4 } });
  return image.toFormat(format, format === 'jpeg' ? { quality: 95 } : {}).toBuffer();
}

/** A horizontal grey gradient, as a JPEG, of any size (e.g. a 12 MP photo stand-in). */
export async function gradientJpeg(width: number, height: number, quality = 90): Promise<Buffer> {
  const row = Buffer.alloc(width * 3);
  for (let x = 0; x < width; x += 1)
    row.fill(Math.round((x / Math.max(1, width - 1)) * 255), x * 3, x * 3 + 3);
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) row.copy(pixels, y * width * 3);
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality })
    .toBuffer();
}

/** A noisy photo-like JPEG (sharp's gaussian noise), slower to decode than a gradient. */
export async function noiseJpeg(width: number, height: number, quality = 90): Promise<Buffer> {
  return sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .jpeg({ quality })
    .toBuffer();
}

/** An animated GIF of one solid colour per frame, with the given delays in milliseconds. */
export async function animatedGif(
  width: number,
  height: number,
  colours: readonly Rgba[],
  delays: readonly number[] = colours.map(() => 100),
): Promise<Buffer> {
  const frame = width * height * 4;
  const pixels = Buffer.alloc(frame * colours.length);
  colours.forEach((colour, index) => {
    for (let offset = 0; offset < frame; offset += 4) pixels.set(colour, index * frame + offset);
  });
  return sharp(pixels, { raw: { width, height: height * colours.length, channels: 4, pageHeight: height } })
    .gif({ delay: [...delays], loop: 0 })
    .toBuffer();
}

/**
 * A JPEG stored `width` x `height` with EXIF orientation 6 (rotate 90 degrees clockwise to view),
 * left half red and right half blue as stored; viewed upright it is `height` x `width`, red on top.
 */
export async function rotatedExifJpeg(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1)
      pixels.set(x < width / 2 ? [255, 0, 0] : [0, 0, 255], (y * width + x) * 3);
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 95 })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, checksum]);
}

/**
 * A valid PNG header declaring `width` x `height` RGB pixels followed by a little filler data: a
 * few KB that claim, e.g., 30000 x 30000 (a decompression bomb's header).
 */
export function declaredSizePng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const filler = Buffer.alloc(2048, 0x78);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', filler),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The RGBA value of the pixel at (`x`, `y`) of an encoded image (first frame, or `page`). */
export async function pixelAt(image: Uint8Array, x: number, y: number, page = 0): Promise<Rgba> {
  const { data, info } = await sharp(image, { page })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const offset = (y * info.width + x) * 4;
  return [data[offset] ?? -1, data[offset + 1] ?? -1, data[offset + 2] ?? -1, data[offset + 3] ?? -1];
}

/** True when every channel of `actual` is within `tolerance` of `expected` (lossy formats). */
export function isNear(actual: Rgba, expected: Rgba, tolerance = 12): boolean {
  return actual.every((value, index) => Math.abs(value - (expected[index] ?? 0)) <= tolerance);
}

/** What a test checks about an encoded image: format, size of one frame, frames, delays, alpha. */
export interface ImageFacts {
  readonly format: string;
  readonly width: number;
  readonly height: number;
  readonly frames: number;
  readonly delay: readonly number[] | undefined;
  readonly hasAlpha: boolean;
}

/** Reads {@link ImageFacts} from the header of an encoded image. */
export async function imageFacts(image: Uint8Array): Promise<ImageFacts> {
  const metadata = await sharp(image).metadata();
  return {
    format: metadata.format,
    width: metadata.width,
    height: metadata.pageHeight ?? metadata.height,
    frames: metadata.pages ?? 1,
    delay: metadata.delay,
    hasAlpha: metadata.hasAlpha,
  };
}

/** A single-colour image, encoded as `format`. */
export async function solidImage(
  width: number,
  height: number,
  colour: readonly [number, number, number],
  format: 'png' | 'jpeg' = 'png',
): Promise<Buffer> {
  const [r, g, b] = colour;
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
    .toFormat(format)
    .toBuffer();
}

/**
 * A tiny SVG (under 400 bytes) that is costly to rasterise: the whole canvas is eight octaves of
 * fractal noise (`feTurbulence`). At 4000x1000 librsvg needs several seconds, well within the pixel
 * limit: the kind of input the render timeout exists for.
 */
export function costlySvg(width: number, height: number): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      '<filter id="noise"><feTurbulence type="fractalNoise" baseFrequency="0.01" numOctaves="8"/></filter>' +
      '<rect width="100%" height="100%" filter="url(#noise)"/></svg>',
  );
}
