import { PDFDocument, StandardFonts } from 'pdf-lib';
import type {
  ConversionRequest,
  ConverterStatus,
  DocumentConverter,
} from '../document/document-converter.js';
import { normaliseLocale } from '../document/locale.js';
import { PreviewError, type PreviewErrorCode } from '../errors.js';

/** Options of {@link createInMemoryConverter}. */
export interface InMemoryConverterOptions {
  /** Pages of every produced PDF. @default 3 */
  readonly pages?: number;
  /** Locale used when a request has none. @default 'en-US' */
  readonly defaultLocale?: string;
}

/** The in-memory converter plus controls for tests. */
export interface InMemoryConverter extends DocumentConverter {
  /** Requests converted so far (failed ones included), oldest first. */
  readonly requests: readonly ConversionRequest[];
  /** Makes every later conversion fail with `code` (undefined: succeed again). */
  failWith(code: PreviewErrorCode | undefined): void;
}

const RETRY_CODES = new Set<PreviewErrorCode>([
  'BUSY',
  'CONVERTER_UNAVAILABLE',
  'CONVERSION_TIMEOUT',
  'CONVERTER_CRASHED',
]);

/**
 * A {@link DocumentConverter} without LibreOffice: every document becomes a PDF whose page n reads
 * `<type> page n <locale>` (only the pages of `request.pages` when given). For unit tests of code
 * that uses a converter; it proves nothing about real conversions.
 */
export function createInMemoryConverter(options: InMemoryConverterOptions = {}): InMemoryConverter {
  const pages = options.pages ?? 3;
  const defaultLocale = options.defaultLocale ?? 'en-US';
  const requests: ConversionRequest[] = [];
  let failure: PreviewErrorCode | undefined;
  let closed = false;
  let conversions = 0;
  let failures = 0;

  const render = async (request: ConversionRequest) => {
    const document = await PDFDocument.create();
    const font = await document.embedFont(StandardFonts.Helvetica);
    const first = Math.min(request.pages?.first ?? 1, pages);
    const last = Math.min(request.pages?.last ?? pages, pages);
    for (let page = first; page <= last; page += 1) {
      const text = `${request.type} page ${page} ${request.locale}`;
      document.addPage([595, 842]).drawText(text, { x: 40, y: 780, size: 20, font });
    }
    return document.save();
  };

  const status = (): ConverterStatus => ({
    name: 'in-memory',
    available: !closed && failure !== 'CONVERTER_UNAVAILABLE',
    reason: closed ? 'closed' : failure === 'CONVERTER_UNAVAILABLE' ? 'told to be unavailable' : undefined,
    instances: 1,
    busy: 0,
    queued: 0,
    restarts: 0,
    conversions,
    failures,
    pool: [],
  });

  const convert = async (request: ConversionRequest) => {
    request.signal?.throwIfAborted();
    const locale = normaliseLocale(request.locale, defaultLocale);
    requests.push(request);
    const code = closed ? 'CONVERTER_UNAVAILABLE' : failure;
    if (code) {
      failures += 1;
      const details = RETRY_CODES.has(code) ? { retryAfterSeconds: 1 } : {};
      throw new PreviewError(code, `the in-memory converter was told to fail with ${code}`, { details });
    }
    conversions += 1;
    return render({ ...request, locale });
  };

  return {
    exportsPageRanges: true,
    requests,
    failWith(code) {
      failure = code;
    },
    convert,
    async convertPages(request) {
      const pdf = await convert(request);
      return { pdf: request.pages.first > pages ? new Uint8Array(0) : pdf, pageCount: pages };
    },
    status,
    async close() {
      closed = true;
    },
  };
}
