import { describe, expect, it } from 'vitest';
import { planPageRender, thumbnailRegion } from './render-scale.js';

const A4 = { width: 595, height: 842 };

describe('planPageRender', () => {
  it('zooms an A4 page just enough to cover a 256x256 thumbnail', () => {
    const plan = planPageRender(A4, { width: 256, height: 256 }, 16_000_000);
    expect(plan.width).toBe(256);
    expect(plan.height).toBeGreaterThanOrEqual(256);
  });

  it('renders at 72 DPI when the area takes the page size (0x0)', () => {
    expect(planPageRender(A4, { width: 0, height: 0 }, 16_000_000)).toEqual({
      scale: 1,
      width: 595,
      height: 842,
    });
  });

  it('covers the larger need of the two sides', () => {
    const plan = planPageRender(A4, { width: 100, height: 1684 }, 16_000_000);
    expect(plan.scale).toBe(2);
    expect(plan.height).toBe(1684);
  });

  it('never asks for less than the 80-pixel minimum side', () => {
    expect(planPageRender(A4, { width: 10, height: 10 }, 16_000_000).width).toBe(80);
  });

  it('scales a render down to the pixel limit', () => {
    const strip = { width: 2, height: 14_400 };
    const plan = planPageRender(strip, { width: 1000, height: 1000 }, 1_000_000);
    expect(plan.width * plan.height).toBeLessThanOrEqual(1_000_000);
    expect(plan.width).toBeGreaterThanOrEqual(1);
  });
});

describe('thumbnailRegion', () => {
  it('keeps the top square of a portrait page rendered to the thumbnail width', () => {
    const rendered = planPageRender(A4, { width: 256, height: 256 }, 16_000_000);
    expect(thumbnailRegion(rendered, { width: 256, height: 256 })).toEqual({
      left: 0,
      top: 0,
      width: 256,
      height: 256,
    });
  });

  it('keeps the horizontally centred square of a landscape page', () => {
    const landscape = { width: 842, height: 595 };
    const rendered = planPageRender(landscape, { width: 256, height: 256 }, 16_000_000);
    const region = thumbnailRegion(rendered, { width: 256, height: 256 });
    expect(region).toEqual({ left: Math.floor(rendered.width / 2) - 128, top: 0, width: 256, height: 256 });
  });

  it('maps the kept part back when the render is smaller than the thumbnail (pixel limit)', () => {
    const rendered = planPageRender(A4, { width: 1000, height: 1000 }, 600_000);
    const region = thumbnailRegion(rendered, { width: 1000, height: 1000 });
    expect(region).toBeDefined();
    // The whole width is needed, and a square of it from the top.
    expect(region).toMatchObject({ left: 0, top: 0, width: rendered.width });
    expect(Math.abs((region?.height ?? 0) - rendered.width)).toBeLessThanOrEqual(1);
  });

  it('asks for the whole render when a side of the area is 0 or when nearly all of it is kept', () => {
    const rendered = planPageRender(A4, { width: 256, height: 0 }, 16_000_000);
    expect(thumbnailRegion(rendered, { width: 256, height: 0 })).toBeUndefined();
    const square = { width: 600, height: 600 };
    expect(thumbnailRegion(square, { width: 256, height: 256 })).toBeUndefined();
  });
});
