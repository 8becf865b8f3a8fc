import { describe, expect, it } from 'vitest';
import { PreviewError } from '../errors.js';
import { resolvePageSelection } from './page-selection.js';

function failure(run: () => unknown): PreviewError {
  try {
    run();
  } catch (error) {
    if (error instanceof PreviewError) return error;
    throw error;
  }
  throw new Error('expected a PreviewError');
}

describe('resolvePageSelection', () => {
  it('selects every page by default and marks it whole', () => {
    expect(resolvePageSelection({}, 7, 500)).toEqual({ firstPage: 1, lastPage: 7, count: 7, whole: true });
  });

  it('reads last_page 0 as the last page', () => {
    expect(resolvePageSelection({ firstPage: 3, lastPage: 0 }, 7, 500)).toEqual({
      firstPage: 3,
      lastPage: 7,
      count: 5,
      whole: false,
    });
  });

  it('clamps a last_page past the end', () => {
    expect(resolvePageSelection({ firstPage: 2, lastPage: 99 }, 7, 500)).toMatchObject({
      lastPage: 7,
      count: 6,
    });
    expect(resolvePageSelection({ firstPage: 1, lastPage: 99 }, 7, 500).whole).toBe(true);
  });

  it('selects a single page', () => {
    expect(resolvePageSelection({ firstPage: 4, lastPage: 4 }, 7, 500)).toMatchObject({
      count: 1,
      whole: false,
    });
  });

  it('refuses first_page 0 or below with INVALID_OPTION', () => {
    const error = failure(() => resolvePageSelection({ firstPage: 0 }, 7, 500));
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toContain('`first_page` to be a whole number >= 1 but received 0');
  });

  it('refuses a first_page past the end, saying how many pages there are', () => {
    const error = failure(() => resolvePageSelection({ firstPage: 8 }, 7, 500));
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toContain('at most 7 (the document has 7 pages) but received 8');
  });

  it('refuses a first_page after last_page', () => {
    const error = failure(() => resolvePageSelection({ firstPage: 5, lastPage: 3 }, 7, 500));
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toContain('`first_page` (5) to be at most `last_page` (3)');
  });

  it('refuses negative or fractional last_page values', () => {
    expect(failure(() => resolvePageSelection({ lastPage: -1 }, 7, 500)).code).toBe('INVALID_OPTION');
    expect(failure(() => resolvePageSelection({ firstPage: 1.5 }, 7, 500)).code).toBe('INVALID_OPTION');
  });

  it('refuses a partial selection larger than the page limit with TOO_MANY_PAGES', () => {
    const error = failure(() => resolvePageSelection({ firstPage: 2 }, 12, 10));
    expect(error.code).toBe('TOO_MANY_PAGES');
    expect(error.details).toMatchObject({ count: 11, maxPages: 10 });
    expect(resolvePageSelection({ firstPage: 2, lastPage: 11 }, 12, 10).count).toBe(10);
  });

  it('does not limit the whole document, which is returned unchanged', () => {
    expect(resolvePageSelection({}, 12, 10)).toMatchObject({ whole: true, count: 12 });
  });
});
