/**
 * Every way a preview can fail. `@collab-suite/preview-core/http` maps each code to one HTTP status
 * in a single table, so adding a code here does not compile there until it has a status.
 */
export type PreviewErrorCode =
  /** The `area` text is not `<width>x<height>` with digits only. */
  | 'INVALID_AREA'
  /** An option is not allowed, e.g. GIF output for an input that is not a GIF. */
  | 'INVALID_OPTION'
  /** The input is empty, corrupt or not one of the supported formats. */
  | 'UNREADABLE_INPUT'
  /** The input declares more pixels than the configured limit. */
  | 'TOO_MANY_PIXELS'
  /** The requested output is larger than the configured maximum side. */
  | 'OUTPUT_TOO_LARGE'
  /** Rendering the input took longer than the configured time and was stopped (the input is too costly). */
  | 'RENDER_TIMEOUT'
  /** The input has more bytes than the configured limit. */
  | 'INPUT_TOO_LARGE'
  /** The stored file does not exist in the storage. */
  | 'NOT_FOUND'
  /** The storage could not be reached, failed, timed out or sent too much. */
  | 'STORAGE_UNAVAILABLE'
  /** Every render slot and queue place is taken; try again later (see `details.retryAfterSeconds`). */
  | 'BUSY'
  /** The PDF or office document is protected by a password; previews cannot open it. */
  | 'PASSWORD_PROTECTED'
  /** A page selection has more pages than the configured limit. */
  | 'TOO_MANY_PAGES'
  /** A zip container (docx, xlsx, odt, ...) exceeds the entry, size or ratio limits, e.g. a zip bomb. */
  | 'ARCHIVE_LIMIT_EXCEEDED'
  /** The converter could not open or convert this document (damaged or not what its content claims). */
  | 'CONVERSION_FAILED'
  /** No document converter is running or reachable; try again later (see `details.retryAfterSeconds`). */
  | 'CONVERTER_UNAVAILABLE'
  /** The converter stopped (crashed or was killed) during this conversion; the next one gets a fresh instance. */
  | 'CONVERTER_CRASHED'
  /** The conversion took longer than the configured time and was stopped. */
  | 'CONVERSION_TIMEOUT'
  /** A disk the service writes to (the converter's temporary folder) is full; nothing of the input was kept. */
  | 'STORAGE_FULL'
  /** An optional peer dependency this operation needs (mupdf, pdf-lib) is not installed; `details.package` names it. */
  | 'MISSING_DEPENDENCY';

/** Optional machine-readable facts about a {@link PreviewError}. */
export type PreviewErrorDetails = Readonly<Record<string, string | number | boolean | undefined>>;

/** The one error class of preview-core: a closed {@link PreviewErrorCode}, a message, optional details and cause. */
export class PreviewError extends Error {
  override readonly name = 'PreviewError';
  readonly code: PreviewErrorCode;
  readonly details: PreviewErrorDetails | undefined;

  constructor(
    code: PreviewErrorCode,
    message: string,
    options: { details?: PreviewErrorDetails; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }
}

/** True when `value` is a {@link PreviewError}, optionally with the given code. */
export function isPreviewError(value: unknown, code?: PreviewErrorCode): value is PreviewError {
  return value instanceof PreviewError && (code === undefined || value.code === code);
}
