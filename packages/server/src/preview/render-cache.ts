import {
  type DiskCache,
  type DiskCacheEntry,
  OUTPUT_FORMATS,
  type OutputFormat,
} from '@collab-suite/preview-core';
import type { RouteResult } from './pdf-http.js';

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
 * a kept render is answered from disk, a new one is kept. Without a cache it just renders.
 */
export async function renderThroughCache(
  cache: DiskCache | undefined,
  key: string,
  render: () => Promise<RouteResult>,
): Promise<RouteResult> {
  if (!cache) return render();
  const kept = await cache.get(key);
  const answer = kept && entryToRender(kept);
  if (answer) return answer;
  const result = await render();
  await cache.set(key, renderToEntry(result));
  return result;
}
