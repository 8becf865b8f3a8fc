import { PreviewError, type PreviewErrorCode } from '@collab-suite/preview-core';
import type { LibraryErrorMapper, MappedError } from '../http/error-status.js';

/** Status of every preview-core error code; a new code does not compile until it is listed here. */
export const previewErrorStatus: Record<PreviewErrorCode, number> = {
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
  // The server's disk, not the request: 507 Insufficient Storage, as for a full chat file store.
  STORAGE_FULL: 507,
};

/** Every 503 says when to come back: the error's `retryAfterSeconds`, else 1 second. */
function headersFor(error: PreviewError): Record<string, string> {
  if (previewErrorStatus[error.code] !== 503) return {};
  const seconds = Number(error.details?.retryAfterSeconds ?? 1);
  return { 'Retry-After': String(Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 1) };
}

/** Maps {@link PreviewError}s: statuses from {@link previewErrorStatus}, Retry-After on 503s, 422 bodies for areas. */
export const previewErrorMapper: LibraryErrorMapper = {
  matches: (error) => error instanceof PreviewError,
  map(error): MappedError {
    const previewError = error as PreviewError;
    const mapped: MappedError = {
      status: previewErrorStatus[previewError.code],
      message: previewError.message,
      code: previewError.code,
      details: previewError.details,
      headers: headersFor(previewError),
    };
    if (previewError.code === 'INVALID_AREA') {
      mapped.issues = [{ loc: ['path', 'area'], msg: previewError.message, type: 'invalid_area' }];
    }
    return mapped;
  },
};
