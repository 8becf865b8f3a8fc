import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { parseOptions } from '../options/parse-options.js';

/** Options of {@link createDiskCache}. */
export const diskCacheOptionsSchema = z.strictObject({
  /** Folder of the cache; created when missing. Entries found there at start are kept. */
  directory: z.string().min(1),
  /**
   * Bytes of entries kept on disk, least recently used removed first. Thumbnails are kilobytes and
   * converted documents up to a few megabytes; 1 GiB keeps tens of thousands of renders.
   * @default 1073741824
   */
  maxBytes: z
    .number()
    .int()
    .min(0)
    .default(1024 * 1024 * 1024),
  /**
   * Bytes of small entries also kept in memory, so the hottest thumbnails are answered without
   * reading a file; 0 reads every hit from disk.
   * @default 33554432
   */
  memoryBytes: z
    .number()
    .int()
    .min(0)
    .default(32 * 1024 * 1024),
  /**
   * Largest single entry kept; bigger results are answered but not kept, so one huge PDF cannot evict
   * everything else.
   * @default 67108864
   */
  maxEntryBytes: z
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
});

/** Disk-cache options as a caller writes them. */
export type DiskCacheOptions = z.input<typeof diskCacheOptionsSchema>;

/** Plain JSON facts kept beside an entry's bytes (its format, page counts...). */
export type DiskCacheMetadata = Readonly<Record<string, string | number | boolean>>;

/** One cached result: its bytes and the facts needed to answer with it. */
export interface DiskCacheEntry {
  readonly data: Uint8Array;
  readonly metadata: DiskCacheMetadata;
}

/** Figures of a {@link DiskCache}, for health reports and metrics. */
export interface DiskCacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly maxBytes: number;
  readonly hits: number;
  readonly misses: number;
}

/**
 * Results kept as files in one folder, bounded by bytes, least recently used removed first. The
 * order survives restarts (a hit touches its file's modification time, and start-up reads the folder
 * oldest first). Writes go to a temporary file renamed into place, so a crash never leaves half an
 * entry; an entry whose file vanished or is damaged is a miss.
 */
export interface DiskCache {
  /** Resolves once the entries already on disk are indexed. */
  whenReady(): Promise<void>;
  /** The entry under `key`, or undefined. */
  get(key: string): Promise<DiskCacheEntry | undefined>;
  /** Stores `entry` under `key` when it fits; failures to write are ignored (the cache is optional). */
  set(key: string, entry: DiskCacheEntry): Promise<void>;
  /** The entry under `key`, or the result of `create()`, stored; concurrent calls share one `create`. */
  getOrCreate(key: string, create: () => Promise<DiskCacheEntry>): Promise<DiskCacheEntry>;
  stats(): DiskCacheStats;
}

const SUFFIX = '.entry';
/** Largest entry the memory part keeps: thumbnails and small previews, not converted documents. */
const MEMORY_ENTRY_BYTES = 1024 * 1024;
const HEADER_BYTES = 4;

function fileNameOf(key: string): string {
  return `${createHash('sha256').update(key).digest('hex')}${SUFFIX}`;
}

/**
 * An entry file: 4 bytes of header length, the JSON header (key and metadata), then the data. The
 * parts are written as they are (no copy of a large PDF on the event loop).
 */
function encode(key: string, entry: DiskCacheEntry): Uint8Array[] {
  const header = Buffer.from(JSON.stringify({ key, metadata: entry.metadata }), 'utf8');
  const length = Buffer.alloc(HEADER_BYTES);
  length.writeUInt32BE(header.byteLength);
  return [length, header, entry.data];
}

async function writeParts(path: string, parts: readonly Uint8Array[]): Promise<void> {
  const file = await open(path, 'w');
  try {
    const expected = parts.reduce((sum, part) => sum + part.byteLength, 0);
    const { bytesWritten } = await file.writev(parts);
    if (bytesWritten !== expected) throw new Error(`wrote ${bytesWritten} of ${expected} bytes`);
  } finally {
    await file.close();
  }
}

function decode(key: string, file: Buffer): DiskCacheEntry | undefined {
  if (file.byteLength < HEADER_BYTES) return undefined;
  const headerEnd = HEADER_BYTES + file.readUInt32BE(0);
  if (headerEnd > file.byteLength) return undefined;
  try {
    const header = JSON.parse(file.subarray(HEADER_BYTES, headerEnd).toString('utf8'));
    if (header?.key !== key || typeof header.metadata !== 'object') return undefined;
    const data = file.subarray(headerEnd);
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), metadata: header.metadata };
  } catch {
    return undefined;
  }
}

async function existingEntries(directory: string): Promise<{ name: string; size: number; time: number }[]> {
  const names = await readdir(directory);
  const found: { name: string; size: number; time: number }[] = [];
  for (const name of names) {
    const path = join(directory, name);
    if (!name.endsWith(SUFFIX)) {
      if (name.endsWith('.tmp')) await rm(path, { force: true });
      continue;
    }
    const facts = await stat(path).catch(() => undefined);
    if (facts?.isFile()) found.push({ name, size: facts.size, time: facts.mtimeMs });
  }
  return found.sort((left, right) => left.time - right.time);
}

/**
 * Creates a {@link DiskCache} in `directory`; a `maxBytes` of 0 keeps nothing (concurrent calls of
 * `getOrCreate` still share one creation).
 * @throws {PreviewError} `INVALID_OPTION` when an option is malformed.
 */
export function createDiskCache(input: DiskCacheOptions): DiskCache {
  const options = parseOptions(diskCacheOptionsSchema, input);
  const { directory } = options;
  const largestKept = Math.min(options.maxEntryBytes, options.maxBytes);
  const removals = new Set<Promise<void>>();
  const remove = (name: string) => {
    const removal = rm(join(directory, name), { force: true })
      .catch(() => {})
      .finally(() => removals.delete(removal));
    removals.add(removal);
    return removal;
  };
  // The index: file name to size, in recency order; lru-cache evicts past maxBytes and removes the file.
  const index =
    options.maxBytes > 0
      ? new LRUCache<string, number>({
          maxSize: options.maxBytes,
          sizeCalculation: (size) => Math.max(1, size),
          dispose: (_size, name, reason) => {
            if (reason === 'evict' || reason === 'delete') void remove(name);
          },
        })
      : undefined;
  const inFlight = new Map<string, Promise<DiskCacheEntry>>();
  const memory =
    options.memoryBytes > 0 && index
      ? new LRUCache<string, DiskCacheEntry>({
          maxSize: options.memoryBytes,
          maxEntrySize: Math.min(MEMORY_ENTRY_BYTES, options.memoryBytes),
          sizeCalculation: (entry) => Math.max(1, entry.data.byteLength),
        })
      : undefined;
  let temporaryNumber = 0;
  // File times order the entries at the next start; the clock is coarser than a burst of writes, so
  // each touch gets a time strictly after the previous one.
  let lastTouch = 0;
  const touch = (name: string) => {
    lastTouch = Math.max(Date.now(), lastTouch + 1);
    const time = new Date(lastTouch);
    return utimes(join(directory, name), time, time).catch(() => {});
  };
  let hits = 0;
  let misses = 0;

  const ready = (async () => {
    if (!index) return;
    await mkdir(directory, { recursive: true });
    for (const entry of await existingEntries(directory)) {
      if (entry.size > largestKept) await remove(entry.name);
      else index.set(entry.name, entry.size);
    }
  })().catch(() => {
    index?.clear();
  });

  const read = async (key: string): Promise<DiskCacheEntry | undefined> => {
    await ready;
    const name = fileNameOf(key);
    if (!index?.has(name)) {
      memory?.delete(key);
      return undefined;
    }
    const remembered = memory?.get(key);
    if (remembered) {
      index.get(name);
      void touch(name);
      return remembered;
    }
    const file = await readFile(join(directory, name)).catch(() => undefined);
    const entry = file && decode(key, file);
    if (!entry) {
      index.delete(name);
      return undefined;
    }
    index.get(name);
    await touch(name);
    if (entry.data.byteLength <= MEMORY_ENTRY_BYTES) memory?.set(key, entry);
    return entry;
  };

  const write = async (key: string, entry: DiskCacheEntry): Promise<void> => {
    await ready;
    const parts = encode(key, entry);
    const bytes = parts.reduce((sum, part) => sum + part.byteLength, 0);
    if (!index || bytes > largestKept) return;
    const name = fileNameOf(key);
    temporaryNumber += 1;
    const temporary = join(directory, `${name}.${process.pid}.${temporaryNumber}.tmp`);
    try {
      await writeParts(temporary, parts);
      await rename(temporary, join(directory, name));
      await touch(name);
      index.set(name, bytes);
      if (entry.data.byteLength <= MEMORY_ENTRY_BYTES) memory?.set(key, entry);
      // The files this entry pushed out are gone when `set` resolves.
      await Promise.all(removals);
    } catch {
      await rm(temporary, { force: true }).catch(() => {});
    }
  };

  return {
    whenReady: () => ready,
    async get(key) {
      const entry = await read(key);
      if (entry) hits += 1;
      else misses += 1;
      return entry;
    },
    set: write,
    getOrCreate(key, create) {
      const pending = inFlight.get(key);
      if (pending) {
        hits += 1;
        return pending;
      }
      const lookup = (async () => {
        const cached = await read(key);
        if (cached) {
          hits += 1;
          return cached;
        }
        misses += 1;
        const created = await create();
        await write(key, created);
        return created;
      })().finally(() => inFlight.delete(key));
      inFlight.set(key, lookup);
      return lookup;
    },
    stats: () => ({
      entries: index?.size ?? 0,
      bytes: index?.calculatedSize ?? 0,
      maxBytes: options.maxBytes,
      hits,
      misses,
    }),
  };
}
