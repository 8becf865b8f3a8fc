import { describe, expect, it } from 'vitest';
import { shutdownBudget } from './shutdown-signals.js';

describe('shutdownBudget', () => {
  it('gives closing the features half of a short bound', () => {
    expect(shutdownBudget(1500)).toEqual({ drainMs: 750, closeMs: 750 });
    expect(shutdownBudget(301)).toEqual({ drainMs: 151, closeMs: 150 });
  });

  it('gives closing the features at most 2 s, requests in flight the rest', () => {
    expect(shutdownBudget(10_000)).toEqual({ drainMs: 8000, closeMs: 2000 });
  });

  it('has nothing to share with a bound of 0', () => {
    expect(shutdownBudget(0)).toEqual({ drainMs: 0, closeMs: 0 });
  });
});
