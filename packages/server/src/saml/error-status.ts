import { SamlConfigError, type SamlConfigErrorCode } from '@collab-suite/saml-config';
import type { ErrorBodyFormat } from '../http/error-handler.js';
import type { LibraryErrorMapper, MappedError } from '../http/error-status.js';

/**
 * Status of every saml-config error code; a new code does not compile until it is listed here. The
 * specification lists only 400 for failed operations, so everything a caller can fix is a 400; a
 * body over the limit is 413, a broken store 503.
 */
export const samlErrorStatus: Record<SamlConfigErrorCode, number> = {
  invalid_domain: 400,
  invalid_properties: 400,
  invalid_parameters: 400,
  invalid_document: 400,
  invalid_metadata: 400,
  document_too_large: 413,
  download_too_large: 400,
  validation_failed: 400,
  incomplete_configuration: 400,
  url_not_allowed: 400,
  fetch_failed: 400,
  fetch_timeout: 400,
  store_failed: 503,
  dependency_unavailable: 503,
  // The server's disk, not the request: 507 Insufficient Storage, as for the chat and preview APIs.
  storage_full: 507,
  invalid_options: 500,
  not_mappable: 400,
};

/** Maps {@link SamlConfigError}s to statuses; a 503 says when to retry (`details.retryAfterSeconds`, else 5 seconds). */
export const samlErrorMapper: LibraryErrorMapper = {
  matches: (error) => error instanceof SamlConfigError,
  map(error): MappedError {
    const samlError = error as SamlConfigError;
    const status = samlErrorStatus[samlError.code];
    const retryAfter = samlError.details?.retryAfterSeconds;
    return {
      status,
      message: samlError.message,
      code: samlError.code,
      details: samlError.details,
      headers:
        status === 503 ? { 'Retry-After': String(typeof retryAfter === 'number' ? retryAfter : 5) } : {},
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
