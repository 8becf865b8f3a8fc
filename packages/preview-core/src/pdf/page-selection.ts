import { PreviewError } from '../errors.js';

/** Pages asked for: `firstPage` counts from 1, `lastPage` 0 means the last page of the document. */
export interface PageRangeRequest {
  /** @default 1 */
  readonly firstPage?: number | undefined;
  /** @default 0 (the last page) */
  readonly lastPage?: number | undefined;
}

/** The pages a request resolves to in one document, 1-based and inclusive. */
export interface PageSelection {
  readonly firstPage: number;
  readonly lastPage: number;
  /** Pages in the selection. */
  readonly count: number;
  /** True when the selection is every page of the document, so the original can be returned as is. */
  readonly whole: boolean;
}

function assertWholeNumber(name: string, value: number, minimum: number): void {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected \`${name}\` to be a whole number >= ${minimum} but received ${JSON.stringify(value)}`,
      { details: { option: name } },
    );
  }
}

/**
 * Resolves a page range against a document of `pageCount` pages: a `lastPage` of 0 or past the end
 * becomes the last page; more than `maxPages` pages is refused unless the selection is the whole
 * document (which costs nothing: the original bytes are returned).
 * @throws {PreviewError} `INVALID_OPTION` when `firstPage` is below 1, past the end or after `lastPage`;
 * `TOO_MANY_PAGES` when a partial selection has more than `maxPages` pages.
 */
export function resolvePageSelection(
  request: PageRangeRequest,
  pageCount: number,
  maxPages: number,
): PageSelection {
  const firstPage = request.firstPage ?? 1;
  const requestedLast = request.lastPage ?? 0;
  assertWholeNumber('first_page', firstPage, 1);
  assertWholeNumber('last_page', requestedLast, 0);
  if (firstPage > pageCount) {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected \`first_page\` to be at most ${pageCount} (the document has ${pageCount} page${pageCount === 1 ? '' : 's'}) but received ${firstPage}`,
      { details: { option: 'first_page', pageCount } },
    );
  }
  if (requestedLast !== 0 && firstPage > requestedLast) {
    throw new PreviewError(
      'INVALID_OPTION',
      `expected \`first_page\` (${firstPage}) to be at most \`last_page\` (${requestedLast}); use last_page=0 for "to the end"`,
      { details: { option: 'first_page', pageCount } },
    );
  }
  const lastPage = requestedLast === 0 || requestedLast > pageCount ? pageCount : requestedLast;
  const count = lastPage - firstPage + 1;
  const whole = firstPage === 1 && lastPage === pageCount;
  if (!whole && count > maxPages) {
    throw new PreviewError(
      'TOO_MANY_PAGES',
      `expected a selection of at most ${maxPages} pages but pages ${firstPage}-${lastPage} are ${count}; ask for a smaller range`,
      { details: { firstPage, lastPage, count, maxPages } },
    );
  }
  return { firstPage, lastPage, count, whole };
}
