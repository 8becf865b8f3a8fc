import { describe, expect, it } from 'vitest';
import { isUuid, timeOrderedUuid } from './ids.js';

describe('timeOrderedUuid', () => {
  it('is a version 7 UUID whose first 48 bits are the current time in milliseconds', () => {
    const before = Date.now();
    const id = timeOrderedUuid();
    const after = Date.now();
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    const time = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
  });

  it('sorts ids made in later milliseconds after earlier ones, and never repeats', async () => {
    const first = timeOrderedUuid();
    await new Promise((resolve) => setTimeout(resolve, 3));
    const second = timeOrderedUuid();
    expect(second > first).toBe(true);
    const many = new Set(Array.from({ length: 10_000 }, timeOrderedUuid));
    expect(many.size).toBe(10_000);
  });
});
