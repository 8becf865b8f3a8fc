import type { DocumentType } from './document-type.js';

/** One document to convert to PDF. */
export interface ConversionRequest {
  readonly data: Uint8Array;
  /** The type recognised from the content (see `detectDocumentType`). */
  readonly type: DocumentType;
  /** BCP 47 tag (e.g. `de-DE`) for number and date formatting; the converter's default when omitted. */
  readonly locale?: string | undefined;
  /** Gives up on a conversion still waiting for the converter. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Pages to export, 1-based and inclusive, when only they are needed (a thumbnail needs page 1).
   * Converters whose {@link DocumentConverter.exportsPageRanges} is true return exactly those pages
   * (fewer when the document is shorter); the others ignore it and return every page.
   */
  readonly pages?: ConversionPageRange | undefined;
}

/** Some pages of a document as a PDF, and how many pages the whole document has. */
export interface PartialConversion {
  /** Pages `first` to `min(last, pageCount)`; empty when `first` is past the end. */
  readonly pdf: Uint8Array;
  readonly pageCount: number;
}

/** Pages of a conversion, 1-based and inclusive. */
export interface ConversionPageRange {
  readonly first: number;
  readonly last: number;
}

/** One warm converter process (a LibreOffice instance) as health reports show it. */
export interface ConverterInstanceStatus {
  readonly id: number;
  readonly state: 'starting' | 'idle' | 'busy' | 'restarting' | 'failed' | 'stopped';
  /** Process id of the instance's process group leader, when running. */
  readonly pid: number | undefined;
  readonly conversions: number;
  readonly restarts: number;
}

/** What a converter reports to `/health/`. */
export interface ConverterStatus {
  /** Adapter name, e.g. `libreoffice` or `remote`. */
  readonly name: string;
  /** True while conversions can be accepted now or soon; false means document previews are offline. */
  readonly available: boolean;
  /** Why it is not available, when it is not. */
  readonly reason: string | undefined;
  readonly instances: number;
  readonly busy: number;
  readonly queued: number;
  readonly restarts: number;
  readonly conversions: number;
  readonly failures: number;
  /** Per-instance detail (local pools only). */
  readonly pool: readonly ConverterInstanceStatus[];
}

/**
 * Port: turns an office document into a PDF. Adapters: a warm LibreOffice pool on this host, a
 * remote Collabora-compatible `/cool/convert-to/pdf` service, and an in-memory fake for tests; all
 * pass the conformance suite in `@collab-suite/preview-core/testing`.
 */
export interface DocumentConverter {
  /** True when `convert` honours {@link ConversionRequest.pages}; the document is then converted only partly. */
  readonly exportsPageRanges?: boolean;
  /**
   * Converts one document to PDF bytes.
   * @throws {PreviewError} `CONVERSION_FAILED` when the document cannot be opened or converted;
   * `CONVERTER_UNAVAILABLE` when no converter runs or answers; `BUSY` when the queue is full;
   * `CONVERSION_TIMEOUT` when it took too long; `CONVERTER_CRASHED` when the converter died meanwhile.
   * The last four carry `details.retryAfterSeconds`. `STORAGE_FULL` when the document could not be
   * written to the converter's full temporary disk (LibreOffice pool).
   */
  convert(request: ConversionRequest): Promise<Uint8Array>;
  /**
   * Converts only `request.pages` and counts the document's pages, so a preview of a few pages of a
   * long document does not convert all of it (a spreadsheet's pages are its printed pages, as its
   * PDF export paginates them). Resolves to undefined when it cannot count the document's pages.
   * @throws {PreviewError} the codes of `convert`.
   */
  convertPages?(
    request: ConversionRequest & { readonly pages: ConversionPageRange },
  ): Promise<PartialConversion | undefined>;
  /** Current state, cheap enough for every health request. */
  status(): ConverterStatus;
  /**
   * Checks the converter actively when its state is otherwise only learnt from conversions (remote:
   * one request to its base URL) and returns the fresh status. Adapters without it are always current.
   */
  probe?(): Promise<ConverterStatus>;
  /** Stops every process and rejects waiting conversions; idempotent. */
  close(): Promise<void>;
}
