/**
 * Every reason a SAML configuration operation can fail. {@link samlConfigErrorHttpStatus} maps each
 * code to one HTTP status in an exhaustive table, so a new code does not compile until it has one.
 */
export const samlConfigErrorCodes = [
  /** The `{domain}` is not a syntactically valid domain name. */
  'invalid_domain',
  /** One or more property values are unknown, of the wrong type or malformed (`details.errors`). */
  'invalid_properties',
  /** A request parameter (query of GET/DELETE/generate/import) is unknown or malformed. */
  'invalid_parameters',
  /** The document to import or validate is not JSON, not well-formed XML, has a DOCTYPE, etc. */
  'invalid_document',
  /** The IdP metadata is well-formed but unusable (no IdP, several IdPs, expired `validUntil`). */
  'invalid_metadata',
  /** The document given to import or validate is larger than the configured limit. */
  'document_too_large',
  /** The document fetched from a URL is larger than the configured limit. */
  'download_too_large',
  /** `validate=true` import or a validation request found errors (`details.errors`, `details.warnings`). */
  'validation_failed',
  /** The configuration lacks what an operation needs (SP metadata without an SP entity ID). */
  'incomplete_configuration',
  /** The URL to fetch is refused: scheme, credentials, or a private/loopback/link-local address. */
  'url_not_allowed',
  /** The URL could not be fetched: DNS, connection, TLS, HTTP status or too many redirects. */
  'fetch_failed',
  /** Fetching the URL took longer than the configured time limit. */
  'fetch_timeout',
  /** The property store failed (constraint, corrupt row). */
  'store_failed',
  /**
   * The property store's database is away right now: nothing was changed, and the same call works once
   * it is back; `details.retryAfterSeconds` says when to retry.
   */
  'dependency_unavailable',
  /** The property store's disk is full: the write was refused and nothing of it was kept. */
  'storage_full',
  /** Options passed to a factory of this package are invalid (programming or deployment error). */
  'invalid_options',
  /** The properties cannot be expressed in a toolkit's settings (sha384 for node-saml, no usable SSO binding; `details.errors`). */
  'not_mappable',
  /**
   * An entry's driver, an optional peer dependency, is not installed (better-sqlite3 for `/sqlite`, pg
   * for `/postgres`); `details.package` names the package to install.
   */
  'driver_missing',
] as const;

/** One of {@link samlConfigErrorCodes}. */
export type SamlConfigErrorCode = (typeof samlConfigErrorCodes)[number];

/** Options of {@link SamlConfigError} beyond code and message. */
export interface SamlConfigErrorOptions {
  /** Machine-readable facts about the failure, safe to show to the caller (never key material). */
  details?: Record<string, unknown>;
  /** The underlying error, kept for logs. */
  cause?: unknown;
}

/** The one error class of `@collab-suite/saml-config`; `code` says what went wrong. */
export class SamlConfigError extends Error {
  override readonly name = 'SamlConfigError';
  readonly code: SamlConfigErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: SamlConfigErrorCode, message: string, options: SamlConfigErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }
}

/** Whether `value` is a {@link SamlConfigError}, optionally with the given code. */
export function isSamlConfigError(value: unknown, code?: SamlConfigErrorCode): value is SamlConfigError {
  return value instanceof SamlConfigError && (code === undefined || value.code === code);
}
