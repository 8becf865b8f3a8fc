import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPreviewService } from '../../src/index.js';
import { animatedGif, isNear, pixelAt, QUADRANT_COLOURS, quadrantImage } from '../../src/testing/index.js';

const service = createPreviewService();
const TRANSPARENT = [0, 0, 0, 0] as const;
const BLACK = [0, 0, 0, 255] as const;

describe('imagePreview', () => {
  let landscapePng: Buffer;
  let landscapeJpeg: Buffer;
  beforeAll(async () => {
    landscapePng = await quadrantImage(400, 200, 'png');
    landscapeJpeg = await quadrantImage(400, 200, 'jpeg');
  });

  it('keeps a png source as png, fitted with transparent borders', async () => {
    const result = await service.imagePreview(landscapePng, { area: '200x200' });
    expect(result).toMatchObject({ format: 'png', width: 200, height: 200 });
    expect(await sharp(result.data).metadata()).toMatchObject({ format: 'png', width: 200, height: 200 });
    expect(await pixelAt(result.data, 100, 10)).toEqual(TRANSPARENT);
    expect(await pixelAt(result.data, 100, 190)).toEqual(TRANSPARENT);
    // The whole image is kept: all four quadrants are inside the 200x100 band.
    expect(await pixelAt(result.data, 5, 55)).toEqual(QUADRANT_COLOURS.topLeft);
    expect(await pixelAt(result.data, 195, 55)).toEqual(QUADRANT_COLOURS.topRight);
    expect(await pixelAt(result.data, 5, 145)).toEqual(QUADRANT_COLOURS.bottomLeft);
    expect(await pixelAt(result.data, 195, 145)).toEqual(QUADRANT_COLOURS.bottomRight);
  });

  it('keeps a jpeg source as jpeg with black borders', async () => {
    const result = await service.imagePreview(landscapeJpeg, { area: '200x200' });
    expect(result.format).toBe('jpeg');
    expect(isNear(await pixelAt(result.data, 100, 10), BLACK)).toBe(true);
    expect(isNear(await pixelAt(result.data, 100, 190), BLACK)).toBe(true);
    expect(isNear(await pixelAt(result.data, 5, 55), QUADRANT_COLOURS.topLeft)).toBe(true);
  });

  it('flattens transparent borders on black when jpeg is asked for a png source', async () => {
    const result = await service.imagePreview(landscapePng, { area: '200x200', outputFormat: 'jpeg' });
    expect(result.format).toBe('jpeg');
    expect(isNear(await pixelAt(result.data, 100, 10), BLACK)).toBe(true);
  });

  it('crops instead of adding borders with crop=true', async () => {
    const result = await service.imagePreview(landscapePng, { area: '200x200', crop: true });
    expect(await pixelAt(result.data, 5, 5)).toEqual(QUADRANT_COLOURS.topLeft);
    expect(await pixelAt(result.data, 195, 195)).toEqual(QUADRANT_COLOURS.bottomRight);
  });

  it('keeps a small source at its size, centred, when the area is more than twice as big', async () => {
    const small = await quadrantImage(100, 100, 'png');
    const result = await service.imagePreview(small, { area: '400x400' });
    expect(await sharp(result.data).metadata()).toMatchObject({ width: 400, height: 400 });
    expect(await pixelAt(result.data, 149, 149)).toEqual(TRANSPARENT);
    expect(await pixelAt(result.data, 152, 152)).toEqual(QUADRANT_COLOURS.topLeft);
    expect(await pixelAt(result.data, 247, 247)).toEqual(QUADRANT_COLOURS.bottomRight);
    expect(await pixelAt(result.data, 251, 251)).toEqual(TRANSPARENT);
  });

  it('returns the source size for 0x0', async () => {
    const result = await service.imagePreview(landscapeJpeg, { area: '0x0' });
    expect(await sharp(result.data).metadata()).toMatchObject({ width: 400, height: 200 });
  });

  it('rasterises svg to png by default', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="50" height="100" fill="#ff0000"/><rect x="50" width="50" height="100" fill="#0000ff"/></svg>',
    );
    const result = await service.imagePreview(svg, { area: '0x0' });
    expect(result.format).toBe('png');
    expect(await sharp(result.data).metadata()).toMatchObject({ format: 'png', width: 100, height: 100 });
    expect(await pixelAt(result.data, 10, 50)).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(result.data, 90, 50)).toEqual([0, 0, 255, 255]);
  });

  it('keeps a webp source as png', async () => {
    const webp = await quadrantImage(200, 200, 'webp');
    const result = await service.imagePreview(webp, { area: '200x200' });
    expect(result.format).toBe('png');
  });

  it('keeps an animated GIF animated by default, with transparent borders on every frame', async () => {
    const gif = await animatedGif(120, 100, [
      [255, 0, 0, 255],
      [0, 255, 0, 255],
      [0, 0, 255, 255],
    ]);
    const result = await service.imagePreview(gif, { area: '240x240' });
    expect(result).toMatchObject({ format: 'gif', width: 240, height: 240, frames: 3 });
    expect(await sharp(result.data).metadata()).toMatchObject({
      format: 'gif',
      width: 240,
      height: 240,
      pages: 3,
    });
    for (const [page, colour] of [
      [0, [255, 0, 0, 255]],
      [2, [0, 0, 255, 255]],
    ] as const) {
      expect((await pixelAt(result.data, 120, 5, page))[3]).toBe(0);
      expect(isNear(await pixelAt(result.data, 120, 120, page), colour)).toBe(true);
    }
  });

  it('encodes a single-frame GIF as gif', async () => {
    const gif = await quadrantImage(100, 100, 'gif');
    const result = await service.imagePreview(gif, { area: '100x100' });
    expect(result).toMatchObject({ format: 'gif', frames: 1 });
  });

  it('refuses gif output for a jpeg with INVALID_OPTION', async () => {
    await expect(
      service.imagePreview(landscapeJpeg, { area: '100x100', outputFormat: 'gif' }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
  });

  it('refuses unknown option values with INVALID_OPTION naming the option', async () => {
    await expect(
      service.imagePreview(landscapeJpeg, { area: '100x100', quality: 'ultra' as 'high' }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('`quality`') });
  });
});
