import {
  type DiskCache,
  type DiskCacheEntry,
  OUTPUT_FORMATS,
  type OutputFormat,
  type StoredFileExistence,
} from '@collab-suite/preview-core';
import type { RouteResult } from './pdf-http.js';

/**
 * How stored-file GETs are answered from what is kept: the render cache, and the storage's word that
 * the version still exists, asked before any kept render (or converted PDF) of it is served.
 */
export interface StoredRenderCache {
  /** Where renders of stored files are kept (none: every GET renders). */
  cache: DiskCache | undefined;
  /** Whether a version still exists, each answer reused for PREVIEW_STORED_EXISTENCE_TTL_MS. */
  existence: StoredFileExistence;
  /**
   * Ask before every render too, not only before a kept render is served: for routes whose service
   * keeps work of its own that skips reading the storage (the documents' converted PDFs).
   */
  confirmBeforeRender?: boolean;
}

/** A stored file's render as a cache entry: its bytes, and whether it is a PDF or which image. */
export function renderToEntry(result: RouteResult): DiskCacheEntry {
  if ('pdf' in result) return { data: result.pdf, metadata: { kind: 'pdf' } };
  const { data, format, width, height, frames } = result.image;
  return { data, metadata: { kind: 'image', format, width, height, frames } };
}

/** The render a cache entry holds, or undefined when the entry is not one (then it is rendered again). */
export function entryToRender(entry: DiskCacheEntry): RouteResult | undefined {
  const { metadata, data } = entry;
  if (metadata.kind === 'pdf') return { pdf: data };
  if (metadata.kind !== 'image' || !(OUTPUT_FORMATS as readonly unknown[]).includes(metadata.format))
    return undefined;
  return {
    image: {
      data: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
      format: metadata.format as OutputFormat,
      width: Number(metadata.width),
      height: Number(metadata.height),
      frames: Number(metadata.frames),
    },
  };
}

/**
 * Renders through `cache` under `key` (the render's ETag: file, version, route and every option):
 * a kept render is answered from disk once `confirmKept` resolved (it throws when the stored file is
 * gone), a new one is kept. Without a cache it just renders.
 */
export async function renderThroughCache(
  cache: DiskCache | undefined,
  key: string,
  render: () => Promise<RouteResult>,
  confirmKept: () => Promise<void> = async () => {},
): Promise<RouteResult> {
  if (!cache) return render();
  const kept = await cache.get(key);
  const answer = kept && entryToRender(kept);
  if (answer) {
    await confirmKept();
    return answer;
  }
  const result = await render();
  await cache.set(key, renderToEntry(result));
  return result;
}
