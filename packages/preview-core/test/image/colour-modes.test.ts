import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createPreviewService } from '../../src/index.js';
import { imageFacts, isNear, pixelAt } from '../../src/testing/index.js';

const service = createPreviewService();
const base = () =>
  sharp({ create: { width: 160, height: 120, channels: 4, background: { r: 200, g: 40, b: 40, alpha: 1 } } });

const inputs: Array<[string, () => Promise<Buffer>, 'red' | 'grey']> = [
  ['a CMYK jpeg', () => base().toColourspace('cmyk').jpeg().toBuffer(), 'red'],
  ['a 16-bit png', () => base().toColourspace('rgb16').png().toBuffer(), 'red'],
  ['a grey png with alpha', () => base().greyscale().png().toBuffer(), 'grey'],
  ['a palette png', () => base().png({ palette: true }).toBuffer(), 'red'],
  ['a lossless webp with alpha', () => base().webp({ lossless: true }).toBuffer(), 'red'],
];

describe('colour modes the original service failed on (500) render as jpeg and png', () => {
  it.each(inputs)('%s', async (_label, build, tint) => {
    const input = await build();
    const jpeg = await service.imageThumbnail(input, { area: '100x100' });
    expect(await imageFacts(jpeg.data)).toMatchObject({ format: 'jpeg', width: 100, height: 100 });
    const png = await service.imagePreview(input, { area: '200x200', outputFormat: 'png' });
    expect(await imageFacts(png.data)).toMatchObject({ format: 'png', width: 200, height: 200 });
    const centre = await pixelAt(png.data, 100, 100);
    expect(centre[3]).toBe(255);
    if (tint === 'red') expect(centre[0] - centre[2]).toBeGreaterThan(100);
    else expect(Math.abs(centre[0] - centre[2])).toBeLessThan(3);
    expect(isNear(await pixelAt(png.data, 100, 5), [0, 0, 0, 0])).toBe(true);
  });
});
