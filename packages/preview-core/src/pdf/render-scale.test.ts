import { describe, expect, it } from 'vitest';
import { planPageRender } from './render-scale.js';

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
