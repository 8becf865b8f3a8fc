import { z } from 'zod';
import { PreviewError } from '../errors.js';
import type { ImageThumbnailRequest, OutputFormat } from '../image/image-options.js';
import type { RenderedImage } from '../image/render-image.js';
import { resolveArea } from '../image/render-request.js';
import type { PageRangeRequest } from '../pdf/page-selection.js';
import {
  assertPageThumbnailFormat,
  type PdfPreviewService,
  pageThumbnailFormat,
} from '../pdf/pdf-preview-service.js';
import type { PdfPreview } from '../pdf/pdf-previewer.js';
import type { PreviewInput, PreviewService } from '../preview-service.js';
import { contentHash } from './content-hash.js';
import {
  type ConversionFailureOptions,
  type ConversionFailureStats,
  createConversionFailureMemory,
} from './conversion-failures.js';
import {
  type ConvertedPdf,
  type ConvertedPdfCache,
  type ConvertedPdfCacheStats,
  convertedPdfKey,
} from './converted-pdf-cache.js';
import { detectDocumentType } from './detect-document-type.js';
import type { ConversionPageRange, ConverterStatus, DocumentConverter } from './document-converter.js';
import type { DocumentType } from './document-type.js';
import { normaliseLocale } from './locale.js';

/** Limits of office-document previews. Each has a default and a reason. */
export const documentLimitsSchema = z.object({
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
 * @throws {ZodError} when a limit is malformed.
 */
export function createDocumentPreviewService(options: {
  readonly previewService: PreviewService;
  readonly pdfService: PdfPreviewService;
  readonly converter: DocumentConverter;
  readonly cache?: ConvertedPdfCache;
  readonly limits?: DocumentLimitsInput;
  readonly failures?: ConversionFailureOptions;
}): DocumentPreviewService {
  const { previewService, pdfService, converter, cache } = options;
  const limits = documentLimitsSchema.parse(options.limits ?? {});
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

  const convertOnce = async (
    recognised: { data: Uint8Array; type: DocumentType; hash?: string },
    locale: string,
    pages: ConversionPageRange | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ConvertedPdf> => {
    const { data, type } = recognised;
    const failureKey = `${recognised.hash ?? (await contentHash(data))}${pagesSuffix(pages)}`;
    failures.check(failureKey);
    try {
      return { pdf: await converter.convert({ data, type, locale, signal, pages }), type };
    } catch (error) {
      throw failures.record(failureKey, error);
    }
  };

  const convert = async (
    input: PreviewInput,
    request: DocumentRequestOptions,
    wanted?: ConversionPageRange,
  ): Promise<ConvertedPdf> => {
    const locale = normaliseLocale(request.locale, limits.defaultLocale);
    const pages = converter.exportsPageRanges ? wanted : undefined;
    const { signal } = request;
    if (input instanceof Uint8Array) {
      const recognised = await recognise(input, signal);
      const hash = await contentHash(recognised.data);
      const run = () => convertOnce({ ...recognised, hash }, locale, pages, signal);
      return cache ? cache.getOrConvert(`upload/${hash}/${locale}${pagesSuffix(pages)}`, run) : run();
    }
    const run = async () => convertOnce(await recognise(input, signal), locale, pages, signal);
    if (!cache) return run();
    const wholeKey = convertedPdfKey(input.storedFile, locale);
    return (pages && cache.peek(wholeKey)) || cache.getOrConvert(`${wholeKey}${pagesSuffix(pages)}`, run);
  };

  // A cached PDF is shared with later requests, so its bytes are copied to the PDF workers, not moved.
  const transferInput = cache === undefined;

  return {
    limits,
    async preview(input, request = {}) {
      const { pdf, type } = await convert(input, request);
      const preview = await pdfService.preview(pdf, { ...request, transferInput });
      return { ...preview, documentType: type };
    },
    async thumbnail(input, request) {
      assertPageThumbnailFormat(request, 'document');
      resolveArea(request.area, previewService.limits.maxOutputSide);
      const { pdf } = await convert(input, request, FIRST_PAGE);
      return pdfService.thumbnail(pdf, { ...request, transferInput });
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

function pagesSuffix(pages: ConversionPageRange | undefined): string {
  return pages ? `/pages=${pages.first}-${pages.last}` : '';
}
