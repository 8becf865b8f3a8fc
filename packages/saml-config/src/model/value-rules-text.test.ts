import { describe, expect, it } from 'vitest';
import { checkStringValue } from './value-rules.js';

describe('text values every store keeps as they are', () => {
  it('refuses NUL and unpaired surrogates, and keeps astral characters', () => {
    expect(checkStringValue('text', 'Org\u0000Name')).toMatchObject({ ok: false });
    expect(checkStringValue('text', 'Org\uD800Name')).toMatchObject({ ok: false });
    expect(checkStringValue('text', 'Org\uDC00')).toMatchObject({ ok: false });
    expect(checkStringValue('text', 'Örg 🚀')).toEqual({ ok: true, value: 'Örg 🚀' });
  });
});
