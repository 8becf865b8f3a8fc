import { httpStatusOf, retryAfterSecondsOf, SamlConfigError } from '@collab-suite/saml-config';
import type { ErrorBodyFormat } from '../http/error-handler.js';
import type { LibraryErrorMapper, MappedError } from '../http/mapped-error.js';

/**
 * Maps {@link SamlConfigError}s to statuses with the library's own table (`httpStatusOf`); a 503 says
 * when to retry (`retryAfterSecondsOf`: `details.retryAfterSeconds`, else 5 seconds).
 */
export const samlErrorMapper: LibraryErrorMapper = {
  matches: (error) => error instanceof SamlConfigError,
  map(error): MappedError {
    const samlError = error as SamlConfigError;
    const status = httpStatusOf(samlError) ?? 500;
    const retryAfter = retryAfterSecondsOf(samlError);
    return {
      status,
      message: samlError.message,
      code: samlError.code,
      details: samlError.details,
      headers: retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) },
    };
  },
};

/**
 * The SAML API's error body: `{ ok: false, error }` as the specification and the admin UI expect,
 * plus `code`, and the `errors`/`warnings` lists when the library reported them.
 */
export const samlErrorBody: ErrorBodyFormat = (mapped) => {
  const details = (mapped.details ?? {}) as { errors?: unknown; warnings?: unknown };
  return {
    ok: false,
    error: mapped.message,
    ...(mapped.code === undefined ? {} : { code: mapped.code }),
    ...(details.errors === undefined ? {} : { errors: details.errors }),
    ...(details.warnings === undefined ? {} : { warnings: details.warnings }),
  };
};
