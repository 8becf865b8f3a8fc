import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPreviewService } from '../../src/index.js';
import {
  gradientJpeg,
  heicSample,
  imageFacts,
  isNear,
  pixelAt,
  previewFailure,
  QUADRANT_COLOURS,
  quadrantImage,
} from '../../src/testing/index.js';

const service = createPreviewService();

async function expectQuadrants(image: Uint8Array, side: number): Promise<void> {
  const far = side - 6;
  expect(isNear(await pixelAt(image, 5, 5), QUADRANT_COLOURS.topLeft, 40)).toBe(true);
  expect(isNear(await pixelAt(image, far, 5), QUADRANT_COLOURS.topRight, 40)).toBe(true);
  expect(isNear(await pixelAt(image, 5, far), QUADRANT_COLOURS.bottomLeft, 40)).toBe(true);
  expect(isNear(await pixelAt(image, far, far), QUADRANT_COLOURS.bottomRight, 40)).toBe(true);
}

describe('damaged images show what decodes, as browsers do', () => {
  let photo: Buffer;
  beforeAll(async () => {
    photo = await gradientJpeg(640, 480);
  });

  it('thumbnails a JPEG cut to 60% of its bytes: the decoded top keeps its gradient', async () => {
    const truncated = photo.subarray(0, Math.floor(photo.length * 0.6));
    await expect(sharp(truncated).toBuffer()).rejects.toThrow();
    const result = await service.imageThumbnail(truncated, { area: '160x120', outputFormat: 'png' });
    expect(result).toMatchObject({ format: 'png', width: 160, height: 120 });
    const left = await pixelAt(result.data, 5, 5);
    const right = await pixelAt(result.data, 154, 5);
    expect(right[0] - left[0]).toBeGreaterThan(150);
  });

  it('previews a PNG cut to 70% of its bytes at its full size', async () => {
    const png = await quadrantImage(200, 200, 'png');
    const truncated = png.subarray(0, Math.floor(png.length * 0.7));
    const result = await service.imagePreview(truncated, { area: '0x0' });
    expect(await imageFacts(result.data)).toMatchObject({ format: 'png', width: 200, height: 200 });
  });

  it('thumbnails a GIF cut to half its bytes; an AVIF cut in half is refused in our words', async () => {
    const gif = await quadrantImage(200, 200, 'gif');
    const result = await service.imageThumbnail(gif.subarray(0, gif.length / 2), { area: '100x100' });
    expect(result).toMatchObject({ format: 'jpeg', width: 100, height: 100 });
    const avif = await quadrantImage(200, 200, 'avif');
    const error = await previewFailure(
      service.imageThumbnail(avif.subarray(0, avif.length / 2), { area: '80x80' }),
    );
    expect(error.code).toBe('UNREADABLE_INPUT');
    expect(error.message).toMatch(/^expected a png, jpeg, gif, webp, svg, tiff or avif image but /);
    expect(error.message).not.toMatch(/heif|seek|vips/i);
  });

  it('keeps the pixel limit for damaged input', async () => {
    const limited = createPreviewService({ limits: { maxInputPixels: 640 * 480 - 1 } });
    const truncated = photo.subarray(0, Math.floor(photo.length * 0.6));
    await expect(limited.imageThumbnail(truncated, { area: '80x80' })).rejects.toMatchObject({
      code: 'TOO_MANY_PIXELS',
    });
  });
});

describe('TIFF and AVIF input, decoded by the bundled libvips', () => {
  it('thumbnails a TIFF and an AVIF made by sharp, quadrants in place', async () => {
    for (const format of ['tiff', 'avif'] as const) {
      const input = await quadrantImage(300, 300, format);
      const result = await service.imageThumbnail(input, { area: '100x100', outputFormat: 'png' });
      expect(result).toMatchObject({ format: 'png', width: 100, height: 100 });
      await expectQuadrants(result.data, 100);
    }
  });

  it('previews TIFF and AVIF as png, the default for sources that are not jpeg or gif', async () => {
    for (const format of ['tiff', 'avif'] as const) {
      const result = await service.imagePreview(await quadrantImage(120, 80, format), { area: '0x0' });
      expect(await imageFacts(result.data)).toMatchObject({ format: 'png', width: 120, height: 80 });
    }
  });

  it('refuses TIFF and AVIF past the pixel limit from their headers', async () => {
    const limited = createPreviewService({ limits: { maxInputPixels: 10_000 } });
    for (const format of ['tiff', 'avif'] as const) {
      await expect(
        limited.imageThumbnail(await quadrantImage(200, 200, format), { area: '80x80' }),
      ).rejects.toMatchObject({ code: 'TOO_MANY_PIXELS' });
    }
  });

  it('refuses HEIC (HEVC), which this sharp cannot decode, saying the format is unsupported', async () => {
    const heic = heicSample(640, 480);
    await expect(sharp(heic).png().toBuffer()).rejects.toThrow(/HEVC/);
    await expect(service.imageThumbnail(heic, { area: '80x80' })).rejects.toMatchObject({
      code: 'UNREADABLE_INPUT',
      message: expect.stringMatching(
        /HEIF image compressed with hevc \(HEIC\), a format this server cannot decode/,
      ),
    });
  });
});
