import { z } from 'zod';
import { PreviewError } from '../errors.js';
import type { ImageThumbnailRequest, OutputFormat } from '../image/image-options.js';
import type { RenderedImage } from '../image/render-image.js';
import { resolveArea } from '../image/render-request.js';
import { assertKnownOptions, parseOptions } from '../options/parse-options.js';
import { type PageRangeRequest, resolvePageSelection } from '../pdf/page-selection.js';
import {
  assertPageThumbnailFormat,
  type PdfPreviewService,
  pageThumbnailFormat,
} from '../pdf/pdf-preview-service.js';
import type { PdfPreview } from '../pdf/pdf-previewer.js';
import type { PreviewInput, PreviewService } from '../preview-service.js';
import {
  type ConversionFailureOptions,
  type ConversionFailureStats,
  createConversionFailureMemory,
} from './conversion-failures.js';
import type { ConvertedPdfCache, ConvertedPdfCacheStats } from './converted-pdf-cache.js';
import { detectDocumentType } from './detect-document-type.js';
import { type ConversionNeed, createDocumentConversions } from './document-conversions.js';
import type { ConversionPageRange, ConverterStatus, DocumentConverter } from './document-converter.js';
import type { DocumentType } from './document-type.js';
import { normaliseLocale } from './locale.js';

/** Limits of office-document previews. Each has a default and a reason. */
export const documentLimitsSchema = z.strictObject({
  /**
   * Largest document in bytes. LibreOffice needs several times a document's size in memory and
   * seconds per megabyte of dense content; 50 MiB covers slide decks full of photos.
   * @default 52428800
   */
  maxInputBytes: z
    .number()
    .int()
    .min(1)
    .default(50 * 1024 * 1024),
  /**
   * Most entries in a zip container (docx, xlsx, pptx, odt, ods, odp). Real documents have tens to a
   * few thousand parts.
   * @default 10000
   */
  maxZipEntries: z.number().int().min(1).default(10_000),
  /**
   * Most bytes a zip container may expand to. A 50 MiB spreadsheet can hold several hundred MiB of
   * XML; more than 512 MiB is a bomb or more than LibreOffice can convert in time.
   * @default 536870912
   */
  maxUncompressedBytes: z
    .number()
    .int()
    .min(1)
    .default(512 * 1024 * 1024),
  /**
   * Highest expansion ratio of any entry of 1 MiB or more. Office XML compresses 5 to 50 times;
   * deflate bombs reach about 1000.
   * @default 200
   */
  maxCompressionRatio: z.number().min(1).default(200),
  /**
   * Locale passed to the converter when a request names none.
   * @default 'en-US'
   */
  defaultLocale: z.string().min(2).default('en-US'),
});

/** Document limits as a caller writes them. */
export type DocumentLimitsInput = z.input<typeof documentLimitsSchema>;
/** Document limits with every default applied. */
export type DocumentLimits = z.output<typeof documentLimitsSchema>;

/** Options of a document request: the locale for the converter and an abort signal. */
export interface DocumentRequestOptions {
  /** BCP 47 tag such as `de-DE`; the service's default when omitted. */
  readonly locale?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A document preview: the PDF pages and the type the content was recognised as. */
export interface DocumentPreview extends PdfPreview {
  readonly documentType: DocumentType;
}

/** State of document previews for health reports. */
export interface DocumentPreviewStatus {
  readonly converter: ConverterStatus;
  readonly cache: ConvertedPdfCacheStats | undefined;
  /** Documents remembered for crashing the converter or running past its time limit. */
  readonly failures: ConversionFailureStats;
}

/** Office-document previews and thumbnails: recognise, convert to PDF (cached), then the PDF rules. */
export interface DocumentPreviewService {
  readonly limits: DocumentLimits;
  /**
   * The selected pages of the converted document as a PDF.
   * @throws {PreviewError} `UNREADABLE_INPUT` (not one of the nine types), `ARCHIVE_LIMIT_EXCEEDED`,
   * `PASSWORD_PROTECTED`, `INPUT_TOO_LARGE`, `CONVERSION_FAILED`, `CONVERTER_UNAVAILABLE`, `BUSY`,
   * `CONVERSION_TIMEOUT`, `CONVERTER_CRASHED`, the page-range codes of PDF previews, `NOT_FOUND`,
   * `STORAGE_UNAVAILABLE`.
   */
  preview(input: PreviewInput, request?: PageRangeRequest & DocumentRequestOptions): Promise<DocumentPreview>;
  /**
   * A thumbnail of the first page of the converted document.
   * @throws {PreviewError} the codes of `preview` and of PDF thumbnails.
   */
  thumbnail(
    input: PreviewInput,
    request: ImageThumbnailRequest & DocumentRequestOptions,
  ): Promise<RenderedImage>;
  /**
   * Recognises the document as `preview` would before converting it (checks the locale, reads the
   * input, checks its size and content, refuses zip bombs and password-protected files), without
   * converting or queueing anything (e.g. for HTTP HEAD).
   * @throws {PreviewError} `INVALID_OPTION` (locale), `UNREADABLE_INPUT`, `ARCHIVE_LIMIT_EXCEEDED`,
   * `PASSWORD_PROTECTED`, `INPUT_TOO_LARGE`, `NOT_FOUND`, `STORAGE_UNAVAILABLE`.
   */
  planPreview(input: PreviewInput, request?: DocumentRequestOptions): Promise<{ documentType: DocumentType }>;
  /**
   * The output format `thumbnail` would answer, after the checks of its options and of `planPreview`.
   * @throws {PreviewError} `INVALID_AREA`, `OUTPUT_TOO_LARGE`, `INVALID_OPTION` (gif output), and the
   * codes of `planPreview`.
   */
  planThumbnail(
    input: PreviewInput,
    request: ImageThumbnailRequest & DocumentRequestOptions,
  ): Promise<{ format: OutputFormat; documentType: DocumentType }>;
  status(): DocumentPreviewStatus;
}

/** Pages a thumbnail needs: the first. */
const FIRST_PAGE: ConversionPageRange = { first: 1, last: 1 };

/**
 * Creates the document part of the preview service. Conversions go through `cache`: stored files'
 * PDFs keyed by service type, id, version and locale, uploads' by the SHA-256 of their bytes and the
 * locale. A thumbnail asks a converter that can for page 1 only. A document that crashes the converter
 * or runs past its time limit `failures.attempts` times is refused (`CONVERSION_FAILED`) without
 * converting it again for a while.
 * @throws {PreviewError} `INVALID_OPTION` when a limit is malformed.
 */
export function createDocumentPreviewService(options: {
  readonly previewService: PreviewService;
  readonly pdfService: PdfPreviewService;
  readonly converter: DocumentConverter;
  readonly cache?: ConvertedPdfCache;
  readonly limits?: DocumentLimitsInput;
  readonly failures?: ConversionFailureOptions;
}): DocumentPreviewService {
  assertKnownOptions(options, ['previewService', 'pdfService', 'converter', 'cache', 'limits', 'failures']);
  const { previewService, pdfService, converter, cache } = options;
  const limits = parseOptions(documentLimitsSchema, options.limits ?? {}, 'limits.');
  const failures = createConversionFailureMemory(options.failures);
  const zipLimits = {
    maxEntries: limits.maxZipEntries,
    maxUncompressedBytes: limits.maxUncompressedBytes,
    maxCompressionRatio: limits.maxCompressionRatio,
  };

  const recognise = async (input: PreviewInput, signal: AbortSignal | undefined) => {
    const data = await previewService.readInput(input, signal);
    if (data.byteLength > limits.maxInputBytes) {
      throw new PreviewError(
        'INPUT_TOO_LARGE',
        `expected a document of at most ${limits.maxInputBytes} bytes but received ${data.byteLength} bytes`,
        { details: { bytes: data.byteLength, maxInputBytes: limits.maxInputBytes } },
      );
    }
    return { data, type: await detectDocumentType(data, zipLimits) };
  };

  const conversions = createDocumentConversions({ converter, cache, failures, recognise });
  const localeOf = (request: DocumentRequestOptions) => normaliseLocale(request.locale, limits.defaultLocale);
  const maxPages = () => pdfService.previewer.limits.maxPagesPerSelection;

  // A cached PDF is shared with later requests, so its bytes are copied to the PDF workers, not moved.
  const transferInput = cache === undefined;

  return {
    limits,
    async preview(input, request = {}) {
      const need = rangeNeed(request, maxPages());
      const converted = await conversions.convert(input, need, localeOf(request), request.signal);
      const { pdf, type, pageCount } = converted;
      if (pageCount !== undefined && converted.firstPage !== undefined) {
        const selection = resolvePageSelection(request, pageCount, maxPages());
        const { firstPage, lastPage } = selection;
        return { data: pdf, firstPage, lastPage, pageCount, documentType: type };
      }
      const { locale: _locale, ...pdfRequest } = request;
      const preview = await pdfService.preview(pdf, { ...pdfRequest, transferInput });
      return { ...preview, documentType: type };
    },
    async thumbnail(input, request) {
      assertPageThumbnailFormat(request, 'document');
      resolveArea(request.area, previewService.limits.maxOutputSide);
      const need = { kind: 'leading', pages: FIRST_PAGE } as const;
      const { pdf } = await conversions.convert(input, need, localeOf(request), request.signal);
      const { locale: _locale, ...pdfRequest } = request;
      return pdfService.thumbnail(pdf, { ...pdfRequest, transferInput });
    },
    async planPreview(input, request = {}) {
      normaliseLocale(request.locale, limits.defaultLocale);
      return { documentType: (await recognise(input, request.signal)).type };
    },
    async planThumbnail(input, request) {
      const format = pageThumbnailFormat(request, 'document');
      resolveArea(request.area, previewService.limits.maxOutputSide);
      normaliseLocale(request.locale, limits.defaultLocale);
      return { format, documentType: (await recognise(input, request.signal)).type };
    },
    status: () => ({ converter: converter.status(), cache: cache?.stats(), failures: failures.stats() }),
  };
}

/**
 * A range when the request names a last page (a few pages of a long document: worth converting only
 * them); the whole document otherwise. The range is checked as the PDF rules would check it.
 * @throws {PreviewError} `INVALID_OPTION`, `TOO_MANY_PAGES`.
 */
function rangeNeed(request: PageRangeRequest, maxPages: number): ConversionNeed {
  const lastPage = request.lastPage ?? 0;
  if (lastPage === 0) return { kind: 'whole' };
  const selection = resolvePageSelection(request, Number.MAX_SAFE_INTEGER, maxPages);
  return { kind: 'range', pages: { first: selection.firstPage, last: selection.lastPage } };
}
