import { PreviewError } from '@collab-suite/preview-core';
import { previewErrorStatus, retryAfterSecondsOf } from '@collab-suite/preview-core/http';
import type { LibraryErrorMapper, MappedError } from '../http/mapped-error.js';

/** Maps {@link PreviewError}s: statuses and Retry-After from preview-core's table, 422 bodies for areas. */
export const previewErrorMapper: LibraryErrorMapper = {
  matches: (error) => error instanceof PreviewError,
  map(error): MappedError {
    const previewError = error as PreviewError;
    const retryAfter = retryAfterSecondsOf(previewError);
    const mapped: MappedError = {
      status: previewErrorStatus[previewError.code],
      message: previewError.message,
      code: previewError.code,
      details: previewError.details,
      headers: retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) },
    };
    if (previewError.code === 'INVALID_AREA') {
      mapped.issues = [{ loc: ['path', 'area'], msg: previewError.message, type: 'invalid_area' }];
    }
    return mapped;
  },
};
