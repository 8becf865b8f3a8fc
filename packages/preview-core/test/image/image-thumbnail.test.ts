import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPreviewService } from '../../src/index.js';
import {
  animatedGif,
  isNear,
  pixelAt,
  QUADRANT_COLOURS,
  quadrantImage,
  rotatedExifJpeg,
} from '../../src/testing/index.js';

const service = createPreviewService();

describe('imageThumbnail', () => {
  let landscape: Buffer;
  beforeAll(async () => {
    landscape = await quadrantImage(400, 200, 'png');
  });

  it('defaults to a jpeg of exactly the area, cropped in the middle', async () => {
    const result = await service.imageThumbnail(landscape, { area: '100x100' });
    expect(result).toMatchObject({ format: 'jpeg', width: 100, height: 100 });
    const metadata = await sharp(result.data).metadata();
    expect(metadata).toMatchObject({ format: 'jpeg', width: 100, height: 100 });
    // The middle 200x200 of the source is kept: quadrant corners stay coloured.
    expect(isNear(await pixelAt(result.data, 5, 5), QUADRANT_COLOURS.topLeft)).toBe(true);
    expect(isNear(await pixelAt(result.data, 94, 5), QUADRANT_COLOURS.topRight)).toBe(true);
    expect(isNear(await pixelAt(result.data, 5, 94), QUADRANT_COLOURS.bottomLeft)).toBe(true);
    expect(isNear(await pixelAt(result.data, 94, 94), QUADRANT_COLOURS.bottomRight)).toBe(true);
  });

  it('keeps width first and height second', async () => {
    const result = await service.imageThumbnail(landscape, { area: '160x90', outputFormat: 'png' });
    expect(await sharp(result.data).metadata()).toMatchObject({ width: 160, height: 90 });
  });

  it('uses the source side for 0 and raises sides below 80', async () => {
    const result = await service.imageThumbnail(landscape, { area: '0x50', outputFormat: 'png' });
    expect(await sharp(result.data).metadata()).toMatchObject({ width: 400, height: 80 });
  });

  it('crops from the top when asked (document pages)', async () => {
    const tall = await quadrantImage(200, 400, 'png');
    const result = await service.imageThumbnail(tall, {
      area: '100x100',
      outputFormat: 'png',
      cropPosition: 'top',
    });
    expect(await pixelAt(result.data, 5, 5)).toEqual(QUADRANT_COLOURS.topLeft);
    expect(await pixelAt(result.data, 5, 95)).toEqual(QUADRANT_COLOURS.topLeft);
    const centred = await service.imageThumbnail(tall, { area: '100x100', outputFormat: 'png' });
    expect(await pixelAt(centred.data, 5, 95)).toEqual(QUADRANT_COLOURS.bottomLeft);
  });

  it('gives rounded png thumbnails anti-aliased transparent corners', async () => {
    const result = await service.imageThumbnail(landscape, {
      area: '100x100',
      shape: 'rounded',
      outputFormat: 'png',
    });
    expect((await pixelAt(result.data, 0, 0))[3]).toBe(0);
    expect((await pixelAt(result.data, 99, 99))[3]).toBe(0);
    expect((await pixelAt(result.data, 50, 50))[3]).toBe(255);
    expect((await pixelAt(result.data, 50, 1))[3]).toBe(255);
    // On the diagonal the edge is blended, not a hard step.
    const edgeAlphas = await Promise.all(
      [13, 14, 15, 16].map(async (at) => (await pixelAt(result.data, at, at))[3]),
    );
    expect(edgeAlphas.some((alpha: number) => alpha > 0 && alpha < 255)).toBe(true);
  });

  it('paints the corners of rounded jpeg thumbnails black', async () => {
    const result = await service.imageThumbnail(landscape, { area: '100x100', shape: 'rounded' });
    expect(result.format).toBe('jpeg');
    expect(isNear(await pixelAt(result.data, 1, 1), [0, 0, 0, 255])).toBe(true);
    expect(isNear(await pixelAt(result.data, 98, 98), [0, 0, 0, 255])).toBe(true);
    expect(isNear(await pixelAt(result.data, 30, 30), QUADRANT_COLOURS.topLeft)).toBe(true);
  });

  it('inscribes an ellipse in a non-square rounded thumbnail', async () => {
    const result = await service.imageThumbnail(landscape, {
      area: '200x100',
      shape: 'rounded',
      outputFormat: 'png',
    });
    expect((await pixelAt(result.data, 2, 50))[3]).toBe(255);
    expect((await pixelAt(result.data, 100, 2))[3]).toBe(255);
    expect((await pixelAt(result.data, 20, 5))[3]).toBe(0);
  });

  it('changes jpeg size with quality and leaves png alone', async () => {
    const photo = await quadrantImage(400, 400, 'jpeg');
    const sizes = await Promise.all(
      (['lowest', 'low', 'medium', 'high', 'highest'] as const).map(
        async (quality) => (await service.imageThumbnail(photo, { area: '300x300', quality })).data.length,
      ),
    );
    for (let index = 1; index < sizes.length; index += 1) {
      expect(sizes[index]).toBeGreaterThan(sizes[index - 1] ?? 0);
    }
    const pngLowest = await service.imageThumbnail(photo, {
      area: '300x300',
      quality: 'lowest',
      outputFormat: 'png',
    });
    const pngHighest = await service.imageThumbnail(photo, {
      area: '300x300',
      quality: 'highest',
      outputFormat: 'png',
    });
    expect(pngLowest.data.equals(pngHighest.data)).toBe(true);
  });

  it('applies EXIF orientation before cropping', async () => {
    const stored = await rotatedExifJpeg(200, 100);
    const result = await service.imageThumbnail(stored, { area: '0x0', outputFormat: 'png' });
    expect(await sharp(result.data).metadata()).toMatchObject({ width: 100, height: 200 });
    expect(isNear(await pixelAt(result.data, 50, 10), [255, 0, 0, 255], 30)).toBe(true);
    expect(isNear(await pixelAt(result.data, 50, 190), [0, 0, 255, 255], 30)).toBe(true);
  });

  it('keeps every frame and the delays of an animated GIF for gif output', async () => {
    const gif = await animatedGif(
      120,
      60,
      [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
      ],
      [100, 200, 300],
    );
    const result = await service.imageThumbnail(gif, { area: '80x80', outputFormat: 'gif' });
    expect(result).toMatchObject({ format: 'gif', width: 80, height: 80, frames: 3 });
    const metadata = await sharp(result.data).metadata();
    expect(metadata).toMatchObject({
      format: 'gif',
      width: 80,
      height: 80,
      pages: 3,
      delay: [100, 200, 300],
    });
    expect(isNear(await pixelAt(result.data, 40, 40, 1), [0, 255, 0, 255])).toBe(true);
    expect(isNear(await pixelAt(result.data, 40, 40, 2), [0, 0, 255, 255])).toBe(true);
  });

  it('takes the first frame of an animated GIF for jpeg output', async () => {
    const gif = await animatedGif(100, 100, [
      [255, 0, 0, 255],
      [0, 255, 0, 255],
    ]);
    const result = await service.imageThumbnail(gif, { area: '80x80' });
    expect(result).toMatchObject({ format: 'jpeg', frames: 1 });
    expect(isNear(await pixelAt(result.data, 40, 40), [255, 0, 0, 255])).toBe(true);
  });

  it('refuses gif output for a png input with INVALID_OPTION saying why', async () => {
    await expect(
      service.imageThumbnail(landscape, { area: '80x80', outputFormat: 'gif' }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringMatching(/gif is only available for GIF input.*png/),
    });
  });

  it('reads webp input', async () => {
    const webp = await quadrantImage(200, 200, 'webp');
    const result = await service.imageThumbnail(webp, { area: '100x100', outputFormat: 'png' });
    expect(isNear(await pixelAt(result.data, 5, 5), QUADRANT_COLOURS.topLeft, 20)).toBe(true);
  });
});

describe('thumbnailFromPixels', () => {
  it('crops raw page pixels from the top into a jpeg', async () => {
    const width = 60;
    const height = 120;
    const data = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) data.set(y < 60 ? [255, 0, 0] : [0, 0, 255], (y * width + x) * 3);
    }
    const result = await service.thumbnailFromPixels(
      { data, width, height, channels: 3 },
      { area: '100x100', cropPosition: 'top' },
    );
    expect(result).toMatchObject({ format: 'jpeg', width: 100, height: 100 });
    expect(isNear(await pixelAt(result.data, 50, 90), [255, 0, 0, 255], 20)).toBe(true);
  });

  it('refuses pixels whose length does not match the size', async () => {
    await expect(
      service.thumbnailFromPixels(
        { data: new Uint8Array(10), width: 4, height: 4, channels: 3 },
        { area: '80x80' },
      ),
    ).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('received 10') });
  });
});
