import { describe, expect, it } from 'vitest';
import { PreviewError } from '../errors.js';
import { normaliseLocale } from './locale.js';

describe('normaliseLocale', () => {
  it('keeps BCP 47 tags, turns underscores into hyphens and falls back when none is given', () => {
    expect(normaliseLocale('de-DE', 'en-US')).toBe('de-DE');
    expect(normaliseLocale('pt_BR', 'en-US')).toBe('pt-BR');
    expect(normaliseLocale('fr', 'en-US')).toBe('fr');
    expect(normaliseLocale(undefined, 'en-US')).toBe('en-US');
    expect(normaliseLocale('', 'en-US')).toBe('en-US');
  });

  it('refuses text that is not a locale with INVALID_OPTION', () => {
    for (const bad of ['x', 'de DE', 'en-US;rm -rf', '../../etc']) {
      expect(() => normaliseLocale(bad, 'en-US')).toThrow(PreviewError);
    }
    expect(() => normaliseLocale('de DE', 'en-US')).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        message: expect.stringContaining('expected `locale` like en-US'),
      }),
    );
  });
});
