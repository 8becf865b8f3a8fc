import { opendir, rm, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { BlobSweepOptions, BlobSweepResult } from '../ports/blob-store.js';
import { isBlobKey } from './blob-keys.js';

/** Keys checked against the metadata at a time. */
const BATCH = 100;

/** Every file below `folder`, depth first. */
async function* filesBelow(folder: string): AsyncGenerator<string> {
  let directory: Awaited<ReturnType<typeof opendir>>;
  try {
    directory = await opendir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for await (const entry of directory) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* filesBelow(path);
    else if (entry.isFile()) yield path;
  }
}

/**
 * The sweep of a disk blob store under `root`: `*.partial` files (writes a crash cut short) and
 * blob files whose key the metadata does not claim, both last written before `olderThan`. Files
 * that are not blobs (no valid key) are left alone.
 */
export async function sweepDiskBlobs(root: string, options: BlobSweepOptions): Promise<BlobSweepResult> {
  const result = { temporaries: 0, unreferenced: 0 };
  const cutoff = options.olderThan.getTime();
  let batch: { key: string; path: string }[] = [];
  const settle = async () => {
    const referenced = new Set(await options.isReferenced(batch.map((candidate) => candidate.key)));
    for (const candidate of batch) {
      if (referenced.has(candidate.key)) continue;
      await rm(candidate.path, { force: true });
      result.unreferenced += 1;
    }
    batch = [];
  };
  for await (const path of filesBelow(root)) {
    const stats = await stat(path).catch(() => undefined);
    if (stats === undefined || stats.mtimeMs >= cutoff) continue;
    if (path.endsWith('.partial')) {
      await rm(path, { force: true });
      result.temporaries += 1;
      continue;
    }
    const key = relative(root, path).split(sep).join('/');
    if (!isBlobKey(key)) continue;
    batch.push({ key, path });
    if (batch.length >= BATCH) await settle();
  }
  if (batch.length > 0) await settle();
  return result;
}
