import { promisify } from 'node:util';
import { createInflateRaw, inflateRaw } from 'node:zlib';
import { PreviewError } from '../errors.js';
import { createTimeSlicer } from './time-slicer.js';

const inflateRawAsync = promisify(inflateRaw);

// Our own reader rather than a zip library (yauzl, jszip...): uploads are untrusted, so the central
// directory is checked against the limits before anything inflates, entry sizes are counted while
// inflating (a declared size is only a claim), inflating streams in bounded chunks, and the walk
// yields to the event loop in time slices. Only the few entries that name the document type are read.

/** Limits on a zip container (docx, xlsx, pptx, odt, ods, odp), checked before anything inflates it. */
export interface ZipLimits {
  /** Most entries in the archive. */
  readonly maxEntries: number;
  /** Most bytes all entries may expand to together. */
  readonly maxUncompressedBytes: number;
  /** Highest expansion ratio of an entry of 1 MiB or more. */
  readonly maxCompressionRatio: number;
}

/** One file inside a zip archive, as its central directory describes it. */
export interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly localHeaderOffset: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const RATIO_CHECK_FROM_BYTES = 1024 * 1024;
/** Output chunk of the inflater that checks entries: each one is a turn of the event loop, then dropped. */
const VERIFY_CHUNK_BYTES = 64 * 1024;
const UTF8 = new TextDecoder();

function damaged(reason: string, cause?: unknown): PreviewError {
  return new PreviewError(
    'UNREADABLE_INPUT',
    `expected a complete zip container but ${reason}`,
    cause === undefined ? {} : { cause },
  );
}

function tooLarge(reason: string, details: Record<string, number | string>): PreviewError {
  return new PreviewError('ARCHIVE_LIMIT_EXCEEDED', `refused the zip container: ${reason}`, { details });
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** True when `bytes` start like a zip archive (a local file header). */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 4 && view(bytes).getUint32(0, true) === LOCAL_HEADER;
}

interface DirectoryLocation {
  readonly entries: number;
  readonly offset: number;
  readonly size: number;
}

function findEndOfDirectory(bytes: Uint8Array): number {
  const data = view(bytes);
  const earliest = Math.max(0, bytes.byteLength - 22 - 0xffff);
  for (let position = bytes.byteLength - 22; position >= earliest; position -= 1) {
    if (data.getUint32(position, true) === END_OF_DIRECTORY) return position;
  }
  throw damaged('its end-of-directory record is missing (truncated file?)');
}

function locateDirectory(bytes: Uint8Array): DirectoryLocation {
  const data = view(bytes);
  const end = findEndOfDirectory(bytes);
  let entries = data.getUint16(end + 10, true);
  let size = data.getUint32(end + 12, true);
  let offset = data.getUint32(end + 16, true);
  const locator = end - 20;
  if (
    (entries === 0xffff || offset === 0xffffffff) &&
    locator >= 0 &&
    data.getUint32(locator, true) === ZIP64_LOCATOR
  ) {
    const record = Number(data.getBigUint64(locator + 8, true));
    if (record + 56 > bytes.byteLength || data.getUint32(record, true) !== ZIP64_END_OF_DIRECTORY) {
      throw damaged('its zip64 end-of-directory record is out of place');
    }
    entries = Number(data.getBigUint64(record + 32, true));
    size = Number(data.getBigUint64(record + 40, true));
    offset = Number(data.getBigUint64(record + 48, true));
  }
  if (offset + size > bytes.byteLength) throw damaged('its central directory lies past the end of the file');
  return { entries, offset, size };
}

/** Reads zip64 sizes from an entry's extra field where the 32-bit fields say 0xffffffff. */
function zip64Sizes(extra: DataView, sizes: { compressed: number; uncompressed: number; offset: number }) {
  let position = 0;
  while (position + 4 <= extra.byteLength) {
    const id = extra.getUint16(position, true);
    const length = extra.getUint16(position + 2, true);
    if (id === 0x0001) {
      let field = position + 4;
      const next = () => {
        if (field + 8 > position + 4 + length) throw damaged('a zip64 extra field is too short');
        const value = Number(extra.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (sizes.uncompressed === 0xffffffff) sizes.uncompressed = next();
      if (sizes.compressed === 0xffffffff) sizes.compressed = next();
      if (sizes.offset === 0xffffffff) sizes.offset = next();
      return;
    }
    position += 4 + length;
  }
}

function readEntry(bytes: Uint8Array, position: number): { entry: ZipEntry; next: number } {
  const data = view(bytes);
  if (position + 46 > bytes.byteLength || data.getUint32(position, true) !== DIRECTORY_ENTRY) {
    throw damaged('its central directory is damaged');
  }
  const nameLength = data.getUint16(position + 28, true);
  const extraLength = data.getUint16(position + 30, true);
  const commentLength = data.getUint16(position + 32, true);
  const next = position + 46 + nameLength + extraLength + commentLength;
  if (next > bytes.byteLength) throw damaged('its central directory runs past the end of the file');
  const sizes = {
    compressed: data.getUint32(position + 20, true),
    uncompressed: data.getUint32(position + 24, true),
    offset: data.getUint32(position + 42, true),
  };
  const nameStart = position + 46;
  zip64Sizes(view(bytes.subarray(nameStart + nameLength, nameStart + nameLength + extraLength)), sizes);
  const name = UTF8.decode(bytes.subarray(nameStart, nameStart + nameLength));
  const entry = {
    name,
    method: data.getUint16(position + 10, true),
    compressedSize: sizes.compressed,
    uncompressedSize: sizes.uncompressed,
    localHeaderOffset: sizes.offset,
  };
  return { entry, next };
}

function checkEntry(entry: ZipEntry, limits: ZipLimits): void {
  if (entry.uncompressedSize < RATIO_CHECK_FROM_BYTES) return;
  const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
  if (ratio > limits.maxCompressionRatio) {
    throw tooLarge(
      `entry "${entry.name}" expands ${Math.round(ratio)} times (${entry.compressedSize} to ${entry.uncompressedSize} bytes), more than the limit of ${limits.maxCompressionRatio}`,
      { entry: entry.name, ratio: Math.round(ratio), maxCompressionRatio: limits.maxCompressionRatio },
    );
  }
}

/**
 * Lists the entries of a zip archive from its central directory, refusing archives past `limits`
 * before a single byte is inflated. Long directories are read in slices that let the event loop
 * serve other work in between.
 * @throws {PreviewError} `UNREADABLE_INPUT` when the directory is damaged; `ARCHIVE_LIMIT_EXCEEDED`
 * for too many entries, too many declared bytes or an entry expanding more than the ratio limit.
 */
export async function listZipEntries(bytes: Uint8Array, limits: ZipLimits): Promise<ZipEntry[]> {
  const location = locateDirectory(bytes);
  if (location.entries > limits.maxEntries) {
    throw tooLarge(`it has ${location.entries} entries, more than the limit of ${limits.maxEntries}`, {
      entries: location.entries,
      maxEntries: limits.maxEntries,
    });
  }
  const slicer = createTimeSlicer();
  const entries: ZipEntry[] = [];
  let total = 0;
  let position = location.offset;
  for (let index = 0; index < location.entries; index += 1) {
    if (slicer.due()) await slicer.pause();
    const { entry, next } = readEntry(bytes, position);
    checkEntry(entry, limits);
    total += entry.uncompressedSize;
    if (total > limits.maxUncompressedBytes) {
      throw tooLarge(`its entries expand to more than the limit of ${limits.maxUncompressedBytes} bytes`, {
        maxUncompressedBytes: limits.maxUncompressedBytes,
      });
    }
    entries.push(entry);
    position = next;
  }
  return entries;
}

function entryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const data = view(bytes);
  const start = entry.localHeaderOffset;
  if (start + 30 > bytes.byteLength || data.getUint32(start, true) !== LOCAL_HEADER) {
    throw damaged(`the local header of "${entry.name}" is missing`);
  }
  const dataStart = start + 30 + data.getUint16(start + 26, true) + data.getUint16(start + 28, true);
  const dataEnd = dataStart + entry.compressedSize;
  if (dataEnd > bytes.byteLength) throw damaged(`the data of "${entry.name}" runs past the end of the file`);
  return bytes.subarray(dataStart, dataEnd);
}

/**
 * Inflates one entry, never producing more than its declared size: an entry that expands further
 * (a zip bomb lying about its size) is refused, and so is one larger than `maxBytes`.
 * @throws {PreviewError} `ARCHIVE_LIMIT_EXCEEDED`, or `UNREADABLE_INPUT` for damaged or unsupported data.
 */
export async function readZipEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number): Promise<Buffer> {
  if (entry.uncompressedSize > maxBytes) {
    throw tooLarge(`entry "${entry.name}" declares ${entry.uncompressedSize} bytes, more than ${maxBytes}`, {
      entry: entry.name,
      maxBytes,
    });
  }
  const compressed = entryData(bytes, entry);
  if (entry.method === 0) return Buffer.from(compressed.subarray(0, entry.uncompressedSize));
  if (entry.method !== 8) throw damaged(`entry "${entry.name}" uses compression method ${entry.method}`);
  try {
    const inflated = await inflateRawAsync(compressed, {
      maxOutputLength: Math.max(1, entry.uncompressedSize),
    });
    if (inflated.byteLength !== entry.uncompressedSize) {
      throw damaged(
        `entry "${entry.name}" inflates to ${inflated.byteLength} bytes, not the declared ${entry.uncompressedSize}`,
      );
    }
    return inflated;
  } catch (error) {
    if (error instanceof PreviewError) throw error;
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw tooLarge(`entry "${entry.name}" expands beyond its declared ${entry.uncompressedSize} bytes`, {
        entry: entry.name,
      });
    }
    throw damaged(`entry "${entry.name}" cannot be inflated (its compressed data is corrupt)`, error);
  }
}

/**
 * Inflates `compressed` chunk by chunk and counts the bytes without keeping them; stops once the
 * count passes `limit`. Each chunk is inflated on libuv's thread pool.
 */
function inflatedSize(compressed: Uint8Array, limit: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflater = createInflateRaw({ chunkSize: VERIFY_CHUNK_BYTES });
    let size = 0;
    inflater.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        inflater.destroy();
        resolve(size);
      }
    });
    inflater.on('error', reject);
    inflater.on('end', () => resolve(size));
    inflater.end(compressed);
  });
}

/** Checks that a deflated entry inflates to exactly its declared size, as {@link readZipEntry} would. */
async function verifyEntry(bytes: Uint8Array, entry: ZipEntry): Promise<void> {
  const compressed = entryData(bytes, entry);
  if (entry.method === 0) return;
  if (entry.method !== 8) throw damaged(`entry "${entry.name}" uses compression method ${entry.method}`);
  let size: number;
  try {
    size = await inflatedSize(compressed, Math.max(1, entry.uncompressedSize));
  } catch (error) {
    throw damaged(`entry "${entry.name}" cannot be inflated (its compressed data is corrupt)`, error);
  }
  if (size > Math.max(1, entry.uncompressedSize)) {
    throw tooLarge(`entry "${entry.name}" expands beyond its declared ${entry.uncompressedSize} bytes`, {
      entry: entry.name,
    });
  }
  if (size !== entry.uncompressedSize) {
    throw damaged(
      `entry "${entry.name}" inflates to ${size} bytes, not the declared ${entry.uncompressedSize}`,
    );
  }
}

/**
 * Inflates every entry once, within each one's declared size, so a container whose directory lies
 * about its sizes is refused here rather than inside the converter. The inflated bytes are counted
 * and dropped chunk by chunk, so neither memory nor the event loop holds a whole entry.
 * @throws {PreviewError} `ARCHIVE_LIMIT_EXCEEDED` or `UNREADABLE_INPUT`, as {@link readZipEntry}.
 */
export async function verifyZipEntries(bytes: Uint8Array, entries: readonly ZipEntry[]): Promise<void> {
  const slicer = createTimeSlicer();
  for (const entry of entries) {
    if (slicer.due()) await slicer.pause();
    if (entry.name.endsWith('/') && entry.uncompressedSize === 0) continue;
    await verifyEntry(bytes, entry);
  }
}
