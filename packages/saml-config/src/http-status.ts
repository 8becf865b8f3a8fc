import { isSamlConfigError, type SamlConfigErrorCode } from './errors.js';

/**
 * The HTTP status of every {@link SamlConfigErrorCode}, for HTTP layers of any framework. The
 * original specification answers 400 to every failed operation, so everything a caller can fix is
 * 400; a body over the limit is 413, a store away 503 (with Retry-After, see
 * {@link retryAfterSecondsOf}), a full disk 507, a programming or deployment error 500. Exhaustive:
 * a new code does not compile until it has a status here.
 */
export const samlConfigErrorHttpStatus: Readonly<Record<SamlConfigErrorCode, number>> = {
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
  storage_full: 507,
  invalid_options: 500,
  not_mappable: 400,
  driver_missing: 500,
};

/** The HTTP status of a {@link SamlConfigError}; undefined for any other value. */
export function httpStatusOf(error: unknown): number | undefined {
  return isSamlConfigError(error) ? samlConfigErrorHttpStatus[error.code] : undefined;
}

/** Seconds a client waits before retrying when the error gives none. */
const defaultRetryAfterSeconds = 5;

/**
 * The Retry-After seconds of a {@link SamlConfigError} answered with 503: its
 * `details.retryAfterSeconds`, else 5; undefined for any other error or status.
 */
export function retryAfterSecondsOf(error: unknown): number | undefined {
  if (httpStatusOf(error) !== 503) return undefined;
  const given = (error as { details?: { retryAfterSeconds?: unknown } }).details?.retryAfterSeconds;
  return typeof given === 'number' ? given : defaultRetryAfterSeconds;
}
