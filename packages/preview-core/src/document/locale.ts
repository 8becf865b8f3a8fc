import { PreviewError } from '../errors.js';

/** The locale tags {@link normaliseLocale} accepts (the OpenAPI document's pattern of `locale`). */
export const LOCALE_PATTERN = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}$/;

/**
 * Checks a BCP 47 locale tag (`de-DE`, `en`, `pt_BR`; an underscore becomes a hyphen) or falls back
 * to `fallback` when none is given.
 * @throws {PreviewError} `INVALID_OPTION` when the text is not a locale tag.
 */
export function normaliseLocale(locale: string | undefined, fallback: string): string {
  if (locale === undefined || locale === '') return fallback;
  if (!LOCALE_PATTERN.test(locale)) {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected \`locale\` like en-US or de-DE but received ${JSON.stringify(locale.slice(0, 40))}`,
      { details: { option: 'locale' } },
    );
  }
  return locale.replaceAll('_', '-');
}
