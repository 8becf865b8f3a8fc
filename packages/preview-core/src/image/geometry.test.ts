import { describe, expect, it } from 'vitest';
import { assertAreaWithinLimit, parseArea } from './area.js';
import { centreBorders, planCrop, planFit, targetSize } from './geometry.js';

describe('parseArea', () => {
  it('reads width then height', () => {
    expect(parseArea('256x128')).toEqual({ width: 256, height: 128 });
    expect(parseArea('0x0')).toEqual({ width: 0, height: 0 });
    expect(parseArea('007x10')).toEqual({ width: 7, height: 10 });
    expect(parseArea('256x')).toEqual({ width: 256, height: 0, widthOnly: true });
  });

  it.each(['abc', '256', '256X256', '256xx', 'x256', '-1x5', '1.5x2', ' 1x2', '1x2 ', '1234567890x1'])(
    'refuses %j with INVALID_AREA and a message showing what came',
    (text) => {
      expect(() => parseArea(text)).toThrow(
        expect.objectContaining({
          code: 'INVALID_AREA',
          message: expect.stringContaining(`received ${JSON.stringify(text)}`),
        }),
      );
    },
  );

  it('refuses sides above the maximum with OUTPUT_TOO_LARGE', () => {
    expect(() => assertAreaWithinLimit(parseArea('999999x1'), 10_000)).toThrow(
      expect.objectContaining({
        code: 'OUTPUT_TOO_LARGE',
        message: expect.stringContaining('at most 10000'),
      }),
    );
    expect(() => assertAreaWithinLimit(parseArea('10000x10000'), 10_000)).not.toThrow();
  });
});

describe('targetSize', () => {
  it.each([
    [1000, 500, 100, 100, 100, 100],
    [1000, 500, 0, 0, 1000, 500],
    [1000, 500, 200, 0, 200, 500],
    [1000, 500, 0, 50, 1000, 80],
    [30, 30, 0, 0, 80, 80],
    [30, 30, 50, 50, 80, 80],
    [30, 30, 400, 400, 80, 80],
    [60, 40, 100, 100, 100, 80],
    [100, 100, 400, 400, 400, 400],
  ])('source %ix%i, area %ix%i gives %ix%i', (sw, sh, rw, rh, width, height) => {
    expect(targetSize({ width: sw, height: sh }, { width: rw, height: rh })).toEqual({ width, height });
  });
});

describe('planCrop', () => {
  it('scales a large source to cover the target and cuts the middle', () => {
    const plan = planCrop({ width: 1000, height: 500 }, { width: 100, height: 100 });
    expect(plan.scaled).toEqual({ width: 200, height: 100 });
    expect(plan.extract).toEqual({ left: 50, top: 0, width: 100, height: 100 });
    expect(plan.borders).toEqual({ top: 0, right: 0, bottom: 0, left: 0 });
    expect(plan.canvas).toEqual({ width: 100, height: 100 });
  });

  it('cuts from the top, horizontally centred, for pages', () => {
    const plan = planCrop({ width: 600, height: 800 }, { width: 100, height: 100 }, 'top');
    expect(plan.scaled).toEqual({ width: 100, height: 133 });
    expect(plan.extract).toEqual({ left: 0, top: 0, width: 100, height: 100 });
    const centred = planCrop({ width: 600, height: 800 }, { width: 100, height: 100 });
    expect(centred.extract).toEqual({ left: 0, top: 16, width: 100, height: 100 });
  });

  it('upscales a source of at least half the area to cover it', () => {
    const plan = planCrop({ width: 300, height: 300 }, { width: 400, height: 400 });
    expect(plan.scaled).toEqual({ width: 400, height: 400 });
  });

  it('keeps a source of at most half the target at its size, centred with borders', () => {
    const plan = planCrop({ width: 100, height: 100 }, { width: 400, height: 400 });
    expect(plan.scaled).toEqual({ width: 100, height: 100 });
    expect(plan.extract).toBeUndefined();
    expect(plan.borders).toEqual({ top: 150, right: 150, bottom: 150, left: 150 });
    const wide = planCrop({ width: 1000, height: 500 }, { width: 2000, height: 2000 });
    expect(wide.scaled).toEqual({ width: 1000, height: 500 });
    expect(wide.canvas).toEqual({ width: 2000, height: 2000 });
  });

  it('fits a source between half and the whole target', () => {
    const plan = planCrop({ width: 1500, height: 500 }, { width: 2000, height: 2000 });
    expect(plan.scaled).toEqual({ width: 2000, height: 666 });
    expect(plan.borders).toEqual({ top: 667, right: 0, bottom: 667, left: 0 });
  });

  it('gives the whole source for area 0x0', () => {
    const plan = planCrop({ width: 1000, height: 500 }, { width: 0, height: 0 });
    expect(plan.scaled).toEqual({ width: 1000, height: 500 });
    expect(plan.extract).toEqual({ left: 0, top: 0, width: 1000, height: 500 });
  });
});

describe('planFit', () => {
  it('fits the whole image and adds borders on the short side', () => {
    const plan = planFit({ width: 1000, height: 500 }, { width: 100, height: 100 });
    expect(plan.scaled).toEqual({ width: 100, height: 50 });
    expect(plan.borders).toEqual({ top: 25, right: 0, bottom: 25, left: 0 });
    expect(plan.extract).toBeUndefined();
  });

  it('upscales tiny images to fill the minimum size', () => {
    const plan = planFit({ width: 30, height: 30 }, { width: 400, height: 400 });
    expect(plan.canvas).toEqual({ width: 80, height: 80 });
    expect(plan.scaled).toEqual({ width: 80, height: 80 });
  });

  it('keeps the size of an image at most half the target', () => {
    const plan = planFit({ width: 100, height: 100 }, { width: 400, height: 400 });
    expect(plan.scaled).toEqual({ width: 100, height: 100 });
  });
});

describe('centreBorders', () => {
  it('puts an odd spare pixel on the right and bottom', () => {
    expect(centreBorders({ width: 10, height: 11 }, { width: 13, height: 14 })).toEqual({
      top: 1,
      right: 2,
      bottom: 2,
      left: 1,
    });
  });
});
