import { isPreviewError, type PreviewError, type PreviewErrorCode } from '../errors.js';

/**
 * The HTTP status of every {@link PreviewErrorCode}; a new code does not compile until it is listed
 * here. Framework adapters (Express, Fastify, Hono...) answer with it.
 */
export const previewErrorStatus: Readonly<Record<PreviewErrorCode, number>> = {
  INVALID_AREA: 422,
  INVALID_OPTION: 400,
  UNREADABLE_INPUT: 400,
  TOO_MANY_PIXELS: 400,
  // The input's fault, not the server's: the clock excludes waiting for a slot, and a retry would cost
  // the same time again, so no 503 and no Retry-After.
  RENDER_TIMEOUT: 400,
  OUTPUT_TOO_LARGE: 400,
  INPUT_TOO_LARGE: 413,
  NOT_FOUND: 404,
  STORAGE_UNAVAILABLE: 502,
  BUSY: 503,
  PASSWORD_PROTECTED: 400,
  TOO_MANY_PAGES: 400,
  ARCHIVE_LIMIT_EXCEEDED: 400,
  CONVERSION_FAILED: 400,
  CONVERTER_UNAVAILABLE: 503,
  CONVERTER_CRASHED: 503,
  CONVERSION_TIMEOUT: 503,
  // The server's disk, not the request: 507 Insufficient Storage.
  STORAGE_FULL: 507,
  // This deployment lacks an optional package for the kind of input asked for.
  MISSING_DEPENDENCY: 501,
};

/**
 * The HTTP status for a {@link PreviewError}: {@link previewErrorStatus} of its code; 500 for
 * anything that is not a PreviewError (a bug, not a client error).
 */
export function httpStatusOf(error: unknown): number {
  return isPreviewError(error) ? previewErrorStatus[error.code] : 500;
}

/**
 * Seconds a client should wait before retrying (the `Retry-After` header): the error's
 * `details.retryAfterSeconds` rounded up, else 1, for errors answered with 503; undefined otherwise.
 */
export function retryAfterSecondsOf(error: PreviewError): number | undefined {
  if (previewErrorStatus[error.code] !== 503) return undefined;
  const seconds = Number(error.details?.retryAfterSeconds ?? 1);
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 1;
}
