import type { PreviewInput } from '../preview-service.js';
import { contentHash } from './content-hash.js';
import type { ConversionFailureMemory } from './conversion-failures.js';
import { type ConvertedPdf, type ConvertedPdfCache, convertedPdfKey } from './converted-pdf-cache.js';
import type { ConversionPageRange, DocumentConverter } from './document-converter.js';
import type { DocumentType } from './document-type.js';

/** A document read and recognised. */
export interface RecognisedDocument {
  readonly data: Uint8Array;
  readonly type: DocumentType;
}

/** Which conversion a request needs. */
export type ConversionNeed =
  /** Every page. */
  | { readonly kind: 'whole' }
  /** The first pages up to `pages.last` are enough (a thumbnail); a whole document does too. */
  | { readonly kind: 'leading'; readonly pages: ConversionPageRange }
  /** These pages, and how many the document has (a preview of a range). */
  | { readonly kind: 'range'; readonly pages: ConversionPageRange };

/** What the document service converts with: its converter, optional cache, and failure memory. */
export interface DocumentConversions {
  /**
   * The PDF a request needs, from the cache or converted: for `range`, only those pages with the
   * document's `pageCount` when the converter can count them, else the whole document.
   */
  convert(
    input: PreviewInput,
    need: ConversionNeed,
    locale: string,
    signal: AbortSignal | undefined,
  ): Promise<ConvertedPdf>;
}

function suffix(need: ConversionNeed): string {
  if (need.kind === 'whole') return '';
  return `/${need.kind}=${need.pages.first}-${need.pages.last}`;
}

/**
 * Conversions keyed by stored file (service type, id, version, locale) or by the SHA-256 of uploaded
 * bytes and the locale, each with the pages it holds. A conversion that crashes or times out the
 * converter is recorded in `failures` under the content hash and the pages, and refused once blamed.
 */
export function createDocumentConversions(options: {
  readonly converter: DocumentConverter;
  readonly cache: ConvertedPdfCache | undefined;
  readonly failures: ConversionFailureMemory;
  readonly recognise: (input: PreviewInput, signal: AbortSignal | undefined) => Promise<RecognisedDocument>;
}): DocumentConversions {
  const { converter, cache, failures, recognise } = options;

  const guarded = async <T>(hash: string, need: ConversionNeed, run: () => Promise<T>): Promise<T> => {
    const key = `${hash}${suffix(need)}`;
    failures.check(key);
    try {
      return await run();
    } catch (error) {
      throw failures.record(key, error);
    }
  };

  const through = (key: string | undefined, run: () => Promise<ConvertedPdf>) =>
    cache && key !== undefined ? cache.getOrConvert(key, run) : run();

  return {
    async convert(input, wanted, locale, signal) {
      const stored = input instanceof Uint8Array ? undefined : convertedPdfKey(input.storedFile, locale);
      const partial =
        wanted.kind === 'range' ? converter.convertPages !== undefined : converter.exportsPageRanges === true;
      const need: ConversionNeed = partial ? wanted : { kind: 'whole' };
      // A whole conversion already kept serves any pages.
      const kept = stored !== undefined && need.kind !== 'whole' ? cache?.peek(stored) : undefined;
      if (kept) return kept;
      let recognised: Promise<RecognisedDocument & { hash: string }> | undefined;
      const read = () => {
        recognised ??= recognise(input, signal).then(async (document) => ({
          ...document,
          hash: await contentHash(document.data),
        }));
        return recognised;
      };
      const uploadKey = async (of: ConversionNeed) => `upload/${(await read()).hash}/${locale}${suffix(of)}`;
      const keyOf = async (of: ConversionNeed) =>
        stored !== undefined ? `${stored}${suffix(of)}` : cache ? uploadKey(of) : undefined;

      const whole = async (): Promise<ConvertedPdf> =>
        through(await keyOf({ kind: 'whole' }), async () => {
          const { data, type, hash } = await read();
          const pdf = await guarded(hash, { kind: 'whole' }, () =>
            converter.convert({ data, type, locale, signal }),
          );
          return { pdf, type };
        });
      if (need.kind === 'whole') return whole();

      return through(await keyOf(need), async () => {
        const { data, type, hash } = await read();
        const { pages } = need;
        if (need.kind === 'leading') {
          const pdf = await guarded(hash, need, () =>
            converter.convert({ data, type, locale, signal, pages }),
          );
          return { pdf, type };
        }
        const convertPages = converter.convertPages?.bind(converter);
        if (!convertPages) return whole();
        const partialPdf = await guarded(hash, need, () =>
          convertPages({ data, type, locale, signal, pages }),
        );
        if (!partialPdf) return whole();
        return { pdf: partialPdf.pdf, type, pageCount: partialPdf.pageCount, firstPage: pages.first };
      });
    },
  };
}
