import { z } from 'zod';
import type { StoredFileRef } from '../storage/stored-file-source.js';
import type { DocumentType } from './document-type.js';

/** A converted document: its PDF and the type its content was recognised as. */
export interface ConvertedPdf {
  readonly pdf: Uint8Array;
  readonly type: DocumentType;
}

/** Options of {@link createConvertedPdfCache}. */
export const convertedPdfCacheOptionsSchema = z.object({
  /**
   * Bytes of PDFs kept. A converted office document is typically 20 KB to 2 MB; 64 MiB keeps the
   * documents people are paging through while bounding the server's memory.
   * @default 67108864
   */
  maxBytes: z
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  /**
   * Largest single PDF kept; bigger ones are served but not cached, so one huge document cannot
   * evict everything else.
   * @default 16777216
   */
  maxEntryBytes: z
    .number()
    .int()
    .min(0)
    .default(16 * 1024 * 1024),
});

/** Cache options as a caller writes them. */
export type ConvertedPdfCacheOptions = z.input<typeof convertedPdfCacheOptionsSchema>;

/** Figures of a {@link ConvertedPdfCache}, for health reports. */
export interface ConvertedPdfCacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly maxBytes: number;
  readonly hits: number;
  readonly misses: number;
}

/**
 * Converted PDFs of stored files, least recently used out first, bounded by bytes. Concurrent
 * requests for one key share one conversion, so a thumbnail and every page range of a document
 * convert it once. Failures are not cached.
 */
export interface ConvertedPdfCache {
  /** The cached PDF for `key`, or the result of `convert()` (stored when it fits). */
  getOrConvert(key: string, convert: () => Promise<ConvertedPdf>): Promise<ConvertedPdf>;
  stats(): ConvertedPdfCacheStats;
  clear(): void;
}

/** The cache key of a stored file's conversion: service type, id, version and locale. */
export function convertedPdfKey(ref: StoredFileRef, locale: string): string {
  return `${ref.serviceType}/${ref.id.toLowerCase()}/${ref.version}/${locale}`;
}

/**
 * Creates a {@link ConvertedPdfCache}; a `maxBytes` of 0 turns caching off (in-flight sharing stays).
 * @throws {ZodError} when an option is malformed.
 */
export function createConvertedPdfCache(input: ConvertedPdfCacheOptions = {}): ConvertedPdfCache {
  const options = convertedPdfCacheOptionsSchema.parse(input);
  const entries = new Map<string, ConvertedPdf>();
  const inFlight = new Map<string, Promise<ConvertedPdf>>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;

  const store = (key: string, converted: ConvertedPdf) => {
    if (converted.pdf.byteLength > Math.min(options.maxEntryBytes, options.maxBytes)) return;
    const previous = entries.get(key);
    if (previous) bytes -= previous.pdf.byteLength;
    entries.delete(key);
    entries.set(key, converted);
    bytes += converted.pdf.byteLength;
    for (const [oldestKey, oldest] of entries) {
      if (bytes <= options.maxBytes) break;
      entries.delete(oldestKey);
      bytes -= oldest.pdf.byteLength;
    }
  };

  return {
    getOrConvert(key, convert) {
      const cached = entries.get(key);
      if (cached) {
        hits += 1;
        entries.delete(key);
        entries.set(key, cached);
        return Promise.resolve(cached);
      }
      const pending = inFlight.get(key);
      if (pending) {
        hits += 1;
        return pending;
      }
      misses += 1;
      const conversion = convert()
        .then((converted) => {
          store(key, converted);
          return converted;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, conversion);
      return conversion;
    },
    stats: () => ({ entries: entries.size, bytes, maxBytes: options.maxBytes, hits, misses }),
    clear() {
      entries.clear();
      bytes = 0;
    },
  };
}
