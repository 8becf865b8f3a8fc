import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { DiskCache, DiskCacheEntry } from '../cache/disk-cache.js';
import { parseOptions } from '../options/parse-options.js';
import type { StoredFileRef } from '../storage/stored-file-source.js';
import { DOCUMENT_TYPES, type DocumentType } from './document-type.js';

/** A converted document: its PDF and the type its content was recognised as. */
export interface ConvertedPdf {
  readonly pdf: Uint8Array;
  readonly type: DocumentType;
  /** Pages of the whole document, when `pdf` holds only some of them (from `firstPage` on). */
  readonly pageCount?: number | undefined;
  /** The document's page `pdf` starts with, when it holds only some pages. */
  readonly firstPage?: number | undefined;
}

/** Options of {@link createConvertedPdfCache}. */
export const convertedPdfCacheOptionsSchema = z.strictObject({
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

function toEntry(converted: ConvertedPdf): DiskCacheEntry {
  const { type, pageCount, firstPage } = converted;
  if (pageCount === undefined || firstPage === undefined) return { data: converted.pdf, metadata: { type } };
  return { data: converted.pdf, metadata: { type, pageCount, firstPage } };
}

function fromEntry(entry: DiskCacheEntry): ConvertedPdf | undefined {
  const { type, pageCount, firstPage } = entry.metadata;
  if (!(DOCUMENT_TYPES as readonly unknown[]).includes(type)) return undefined;
  const partial =
    typeof pageCount === 'number' && typeof firstPage === 'number' ? { pageCount, firstPage } : {};
  return { pdf: entry.data, type: type as DocumentType, ...partial };
}

/**
 * Converted PDFs of stored files, least recently used out first, bounded by bytes. Concurrent
 * requests for one key share one conversion, so a thumbnail and every page range of a document
 * convert it once. Failures are not cached.
 */
export interface ConvertedPdfCache {
  /** The cached PDF for `key`, or the result of `convert()` (stored when it fits). */
  getOrConvert(key: string, convert: () => Promise<ConvertedPdf>): Promise<ConvertedPdf>;
  /** The PDF kept in memory for `key`, without converting or reading the disk. */
  peek(key: string): ConvertedPdf | undefined;
  stats(): ConvertedPdfCacheStats;
  clear(): void;
}

/** The cache key of a stored file's conversion: service type, id, version and locale. */
export function convertedPdfKey(ref: StoredFileRef, locale: string): string {
  return `${ref.serviceType}/${ref.id.toLowerCase()}/${ref.version}/${locale}`;
}

/**
 * Creates a {@link ConvertedPdfCache}; a `maxBytes` of 0 turns the memory part off (in-flight sharing
 * stays). With a `disk` cache, PDFs missing from memory are looked up there and conversions are kept
 * there too, so they survive restarts.
 * @throws {PreviewError} `INVALID_OPTION` when an option is malformed.
 */
export function createConvertedPdfCache(
  input: ConvertedPdfCacheOptions = {},
  disk?: DiskCache,
): ConvertedPdfCache {
  const options = parseOptions(convertedPdfCacheOptionsSchema, input);
  const largestKept = Math.min(options.maxEntryBytes, options.maxBytes);
  // lru-cache keeps the recency order and the byte bound; it needs a positive size, so a cache of 0
  // bytes is no cache at all.
  const entries =
    options.maxBytes > 0
      ? new LRUCache<string, ConvertedPdf>({
          maxSize: options.maxBytes,
          maxEntrySize: Math.max(1, largestKept),
          sizeCalculation: (converted) => Math.max(1, converted.pdf.byteLength),
        })
      : undefined;
  const inFlight = new Map<string, Promise<ConvertedPdf>>();
  let hits = 0;
  let misses = 0;

  return {
    getOrConvert(key, convert) {
      const cached = entries?.get(key);
      if (cached) {
        hits += 1;
        return Promise.resolve(cached);
      }
      const pending = inFlight.get(key);
      if (pending) {
        hits += 1;
        return pending;
      }
      misses += 1;
      const produce = disk ? () => throughDisk(disk, key, convert) : convert;
      const conversion = produce()
        .then((converted) => {
          if (converted.pdf.byteLength <= largestKept) entries?.set(key, converted);
          return converted;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, conversion);
      return conversion;
    },
    peek: (key) => entries?.get(key),
    stats: () => ({
      entries: entries?.size ?? 0,
      bytes: entries?.calculatedSize ?? 0,
      maxBytes: options.maxBytes,
      hits,
      misses,
    }),
    clear() {
      entries?.clear();
    },
  };
}

async function throughDisk(
  disk: DiskCache,
  key: string,
  convert: () => Promise<ConvertedPdf>,
): Promise<ConvertedPdf> {
  const cached = await disk.get(`converted-pdf/${key}`);
  const kept = cached && fromEntry(cached);
  if (kept) return kept;
  const converted = await convert();
  await disk.set(`converted-pdf/${key}`, toEntry(converted));
  return converted;
}
