import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPreviewService } from '../../src/index.js';
import {
  animatedGif,
  costlySvg,
  declaredSizePng,
  gradientJpeg,
  heicSample,
  quadrantImage,
} from '../../src/testing/index.js';

const service = createPreviewService();

describe('bad input', () => {
  let photo: Buffer;
  beforeAll(async () => {
    photo = await gradientJpeg(640, 480);
  });

  it('refuses zero bytes with UNREADABLE_INPUT', async () => {
    await expect(service.imageThumbnail(new Uint8Array(0), { area: '80x80' })).rejects.toMatchObject({
      code: 'UNREADABLE_INPUT',
      message: expect.stringContaining('received 0 bytes'),
    });
  });

  it('refuses a JPEG cut off before its image data with UNREADABLE_INPUT', async () => {
    const headerOnly = photo.subarray(0, photo.indexOf(Buffer.from([0xff, 0xda])));
    await expect(service.imagePreview(headerOnly, { area: '0x0' })).rejects.toMatchObject({
      code: 'UNREADABLE_INPUT',
    });
  });

  it('refuses random bytes with UNREADABLE_INPUT naming the accepted formats', async () => {
    await expect(service.imageThumbnail(randomBytes(4096), { area: '80x80' })).rejects.toMatchObject({
      code: 'UNREADABLE_INPUT',
      message: expect.stringContaining('png, jpeg, gif, webp, svg, tiff or avif'),
    });
  });

  it('refuses a format outside the list (HEIC, which this sharp cannot decode)', async () => {
    await expect(service.imageThumbnail(heicSample(64, 48), { area: '80x80' })).rejects.toMatchObject({
      code: 'UNREADABLE_INPUT',
      message: expect.stringContaining('received a HEIF image compressed with hevc (HEIC)'),
    });
  });

  it('refuses a few-KB PNG declaring 30000x30000 from its header, with TOO_MANY_PIXELS', async () => {
    const bomb = declaredSizePng(30_000, 30_000);
    expect(bomb.length).toBeLessThan(4096);
    await expect(service.imageThumbnail(bomb, { area: '80x80' })).rejects.toMatchObject({
      code: 'TOO_MANY_PIXELS',
      message: expect.stringContaining('30000x30000'),
    });
  });

  it('still renders after refusing bad input', async () => {
    await expect(service.imageThumbnail(randomBytes(100), { area: '80x80' })).rejects.toThrow();
    await expect(service.imageThumbnail(photo, { area: '80x80' })).resolves.toMatchObject({ format: 'jpeg' });
  });

  it.each(['abc', '256', '256xx', '1x2x3'])(
    'refuses area %j with INVALID_AREA before reading the input',
    async (area) => {
      await expect(service.imageThumbnail(new Uint8Array(0), { area })).rejects.toMatchObject({
        code: 'INVALID_AREA',
      });
    },
  );
});

describe('limits', () => {
  it('refuses an area side above maxOutputSide with OUTPUT_TOO_LARGE', async () => {
    await expect(service.imageThumbnail(new Uint8Array(1), { area: '999999x1' })).rejects.toMatchObject({
      code: 'OUTPUT_TOO_LARGE',
      message: expect.stringContaining('at most 10000'),
    });
  });

  it('refuses an output that reaches past maxOutputSide through area 0', async () => {
    const small = createPreviewService({ limits: { maxOutputSide: 300 } });
    const image = await quadrantImage(400, 200);
    await expect(small.imagePreview(image, { area: '0x0' })).rejects.toMatchObject({
      code: 'OUTPUT_TOO_LARGE',
    });
    await expect(small.imagePreview(image, { area: '300x300' })).resolves.toMatchObject({ width: 300 });
  });

  it('refuses inputs over maxInputBytes with INPUT_TOO_LARGE', async () => {
    const tiny = createPreviewService({ limits: { maxInputBytes: 1000 } });
    const image = await gradientJpeg(300, 300);
    expect(image.length).toBeGreaterThan(1000);
    await expect(tiny.imageThumbnail(image, { area: '80x80' })).rejects.toMatchObject({
      code: 'INPUT_TOO_LARGE',
    });
  });

  it('counts every frame of an animated GIF rendered as gif against maxInputPixels', async () => {
    const limited = createPreviewService({ limits: { maxInputPixels: 100 * 100 * 2 } });
    const gif = await animatedGif(100, 100, [
      [255, 0, 0, 255],
      [0, 255, 0, 255],
      [0, 0, 255, 255],
    ]);
    await expect(limited.imageThumbnail(gif, { area: '80x80', outputFormat: 'gif' })).rejects.toMatchObject({
      code: 'TOO_MANY_PIXELS',
      message: expect.stringContaining('3 frames'),
    });
    await expect(limited.imageThumbnail(gif, { area: '80x80' })).resolves.toMatchObject({ format: 'jpeg' });
  });

  it('answers BUSY with a retry hint when every slot and queue place is taken', async () => {
    const busy = createPreviewService({ limits: { maxConcurrentRenders: 1, maxQueuedRenders: 1 } });
    const photo = await gradientJpeg(2000, 1500);
    const renders = Array.from({ length: 4 }, () => busy.imageThumbnail(photo, { area: '100x100' }));
    const results = await Promise.allSettled(renders);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(2);
    expect(refused).toHaveLength(2);
    for (const result of refused) {
      expect(result.reason).toMatchObject({
        code: 'BUSY',
        details: { retryAfterSeconds: expect.any(Number) },
      });
    }
    expect(busy.stats()).toMatchObject({ activeRenders: 0, queuedRenders: 0 });
  });

  it('stops a render past renderTimeoutSeconds with RENDER_TIMEOUT, frees its slot and renders the next', async () => {
    const limited = createPreviewService({
      limits: { renderTimeoutSeconds: 1, maxConcurrentRenders: 1, maxQueuedRenders: 0 },
    });
    const slow = costlySvg(4000, 1000);
    await expect(limited.imagePreview(slow, { area: '0x0' })).rejects.toMatchObject({
      code: 'RENDER_TIMEOUT',
      message: expect.stringContaining('within the limit of 1 s'),
      details: { timeoutSeconds: 1 },
    });
    expect(limited.stats()).toMatchObject({ activeRenders: 0, queuedRenders: 0 });
    const photo = await gradientJpeg(640, 480);
    await expect(limited.imagePreview(photo, { area: '320x240' })).resolves.toMatchObject({
      format: 'jpeg',
      width: 320,
    });
    await expect(limited.imageThumbnail(slow, { area: '128x128' })).resolves.toMatchObject({
      format: 'jpeg',
    });
  });

  it('refuses malformed limits when the service is created', () => {
    expect(() => createPreviewService({ limits: { renderTimeoutSeconds: 0 } })).toThrow(
      expect.objectContaining({ message: expect.stringContaining('renderTimeoutSeconds') }),
    );
    expect(() => createPreviewService({ limits: { maxConcurrentRenders: 0 } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        message: expect.stringContaining('maxConcurrentRenders'),
      }),
    );
  });
});
