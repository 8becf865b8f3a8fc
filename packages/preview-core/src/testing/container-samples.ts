import { constants, crc32, deflateRawSync } from 'node:zlib';

/** One entry of a zip built by {@link makeZip}. */
export interface ZipEntrySpec {
  readonly name: string;
  readonly data: Uint8Array | string;
  /** @default 'deflate' */
  readonly method?: 'store' | 'deflate';
  /** Uncompressed size written in the headers, to build archives that lie about it. */
  readonly declaredSize?: number;
  /** Already deflated bytes and their CRC-32, used instead of deflating `data`. */
  readonly deflated?: { readonly bytes: Uint8Array; readonly crc: number; readonly size: number };
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16LE(value);
  return buffer;
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value >>> 0);
  return buffer;
}

/** A zip archive with the given entries (no data descriptors, no zip64), written by hand. */
export function makeZip(entries: readonly ZipEntrySpec[]): Uint8Array {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const raw = typeof entry.data === 'string' ? Buffer.from(entry.data) : Buffer.from(entry.data);
    const method = entry.method === 'store' ? 0 : 8;
    const stored = entry.deflated
      ? Buffer.from(entry.deflated.bytes)
      : method === 0
        ? raw
        : deflateRawSync(raw);
    const crc = entry.deflated ? entry.deflated.crc : crc32(raw);
    const name = Buffer.from(entry.name);
    const size = entry.declaredSize ?? entry.deflated?.size ?? raw.byteLength;
    const common = [
      u16(20),
      u16(0),
      u16(method),
      u16(0),
      u16(0x21),
      u32(crc),
      u32(stored.byteLength),
      u32(size),
    ];
    const local = Buffer.concat([u32(0x04034b50), ...common, u16(name.byteLength), u16(0), name, stored]);
    directory.push(
      Buffer.concat([
        u32(0x02014b50),
        u16(20),
        ...common,
        u16(name.byteLength),
        u16(0),
        u16(0),
        u16(0),
        u16(0),
        u32(0),
        u32(offset),
        name,
      ]),
    );
    locals.push(local);
    offset += local.byteLength;
  }
  const central = Buffer.concat(directory);
  const end = Buffer.concat([
    u32(0x06054b50),
    u16(0),
    u16(0),
    u16(entries.length),
    u16(entries.length),
    u32(central.byteLength),
    u32(offset),
    u16(0),
  ]);
  return Buffer.concat([...locals, central, end]);
}

/** `[Content_Types].xml` declaring a Word document's main part. */
export const DOCX_CONTENT_TYPES =
  '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';

/**
 * A zip bomb shaped like a docx: `word/document.xml` is `mebibytes` MiB of zeros deflated to about a
 * thousandth of that. With `lie`, the headers declare 1000 bytes instead of the real size.
 */
export function docxZipBomb(mebibytes: number, lie = false): Uint8Array {
  return makeZip([
    { name: '[Content_Types].xml', data: DOCX_CONTENT_TYPES },
    {
      name: 'word/document.xml',
      data: '',
      deflated: deflatedZeros(mebibytes),
      ...(lie ? { declaredSize: 1000 } : {}),
    },
  ]);
}

/** Raw deflate data with its CRC-32 and inflated size, as {@link ZipEntrySpec.deflated} takes it. */
export interface DeflatedData {
  readonly bytes: Uint8Array;
  readonly crc: number;
  readonly size: number;
}

/**
 * `data` repeated `times` times as raw deflate data, built without compressing it all: one fully
 * flushed (self-contained, byte-aligned) block of `data`, repeated, then an empty final block.
 */
export function repeatedDeflate(data: Uint8Array, times: number): DeflatedData {
  const block = deflateRawSync(data, { finishFlush: constants.Z_FULL_FLUSH });
  let crc = 0;
  for (let index = 0; index < times; index += 1) crc = crc32(data, crc);
  const bytes = Buffer.concat([...Array.from({ length: times }, () => block), Buffer.from([0x03, 0x00])]);
  return { bytes, crc, size: data.byteLength * times };
}

/** `mebibytes` MiB of zeros as raw deflate data. */
function deflatedZeros(mebibytes: number): DeflatedData {
  return repeatedDeflate(Buffer.alloc(1024 * 1024), mebibytes);
}

/** A top-level stream of {@link makeCompoundFile}: a name, or a name and its bytes (under 4096). */
export type CompoundStreamSpec = string | { readonly name: string; readonly data: Uint8Array };

const SECTOR = 512;
const MINI_SECTOR = 64;
const END_OF_CHAIN = 0xfffffffe;
const FREE = 0xffffffff;

/** One directory entry of a compound file (MS-CFB 2.6). */
export interface CompoundDirectoryEntry {
  readonly name: string;
  readonly type: number;
  readonly right: number;
  readonly child: number;
  readonly start: number;
  readonly size: number;
}

/** Where a compound file's tables start, for {@link writeCompoundHeader}. */
export interface CompoundHeaderLayout {
  /** FAT sectors; they are the first ones, from sector 0. */
  readonly fatSectors: number;
  readonly directoryStart: number;
  /** First mini FAT sector, or none. */
  readonly miniFatStart?: number;
  readonly miniFatSectors?: number;
  /** DIFAT sectors, right after the FAT ones, or none. */
  readonly difatSectors: number;
}

/**
 * Writes the 512-byte header of a version 3 compound file (MS-CFB 2.2): signature, byte order,
 * sector shifts, the table locations of `layout`, the 4096-byte mini-stream cutoff, and the first
 * 109 FAT sector numbers (the FAT starts at sector 0).
 */
export function writeCompoundHeader(file: Buffer, layout: CompoundHeaderLayout): void {
  const { fatSectors, difatSectors } = layout;
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(file, 0);
  file.writeUInt16LE(0x3e, 24);
  file.writeUInt16LE(3, 26);
  file.writeUInt16LE(0xfffe, 28);
  file.writeUInt16LE(9, 30);
  file.writeUInt16LE(6, 32);
  file.writeUInt32LE(fatSectors, 44);
  file.writeUInt32LE(layout.directoryStart, 48);
  file.writeUInt32LE(4096, 56);
  file.writeUInt32LE(layout.miniFatStart ?? END_OF_CHAIN, 60);
  file.writeUInt32LE(layout.miniFatSectors ?? 0, 64);
  file.writeUInt32LE(difatSectors > 0 ? fatSectors : END_OF_CHAIN, 68);
  file.writeUInt32LE(difatSectors, 72);
  for (let index = 0; index < 109; index += 1) {
    file.writeUInt32LE(index < fatSectors ? index : FREE, 76 + index * 4);
  }
}

/** Writes one directory entry (MS-CFB 2.6): name, type, siblings, child, start sector and size. */
export function writeDirectoryEntry(file: Buffer, at: number, entry: CompoundDirectoryEntry): void {
  const encoded = Buffer.from(`${entry.name}\0`, 'utf16le');
  encoded.copy(file, at);
  file.writeUInt16LE(encoded.byteLength, at + 64);
  file.writeUInt8(entry.type, at + 66);
  file.writeUInt32LE(FREE, at + 68);
  file.writeUInt32LE(entry.right, at + 72);
  file.writeUInt32LE(entry.child, at + 76);
  file.writeUInt32LE(entry.start, at + 116);
  file.writeUInt32LE(entry.size, at + 120);
}

/**
 * A minimal OLE2 compound file built from the MS-CFB layout (version 3, 512-byte sectors): sector 0
 * holds the FAT, 1 the directory, 2 the mini FAT, then the mini stream holding the streams' bytes in
 * 64-byte mini sectors (as real files keep streams under 4096 bytes). The root storage holds up to
 * three streams, like the top level of a doc, xls, ppt or encrypted OOXML file.
 */
export function makeCompoundFile(streams: readonly CompoundStreamSpec[]): Uint8Array {
  if (streams.length > 3) throw new Error('at most three streams fit this minimal layout');
  const specs = streams.map((stream) =>
    typeof stream === 'string' ? { name: stream, data: new Uint8Array(0) } : stream,
  );
  const miniSectors = specs.map((spec) => Math.ceil(spec.data.byteLength / MINI_SECTOR));
  const totalMini = miniSectors.reduce((sum, count) => sum + count, 0);
  if (totalMini > SECTOR / 4)
    throw new Error('the streams need more mini sectors than one mini FAT sector holds');
  const miniStreamSectors = Math.ceil((totalMini * MINI_SECTOR) / SECTOR);
  const file = Buffer.alloc(SECTOR * (4 + miniStreamSectors), 0);
  // One FAT sector (0), the directory at 1, the mini FAT (one sector) at 2, no DIFAT.
  writeCompoundHeader(file, {
    fatSectors: 1,
    directoryStart: 1,
    miniFatStart: 2,
    miniFatSectors: 1,
    difatSectors: 0,
  });
  const fat = SECTOR; // sector 0
  for (let index = 0; index < SECTOR / 4; index += 1) file.writeUInt32LE(FREE, fat + index * 4);
  file.writeUInt32LE(0xfffffffd, fat);
  file.writeUInt32LE(END_OF_CHAIN, fat + 4);
  file.writeUInt32LE(END_OF_CHAIN, fat + 8);
  for (let index = 0; index < miniStreamSectors; index += 1) {
    const sector = 3 + index;
    file.writeUInt32LE(index === miniStreamSectors - 1 ? END_OF_CHAIN : sector + 1, fat + sector * 4);
  }
  const miniFat = SECTOR * 3; // sector 2
  for (let index = 0; index < SECTOR / 4; index += 1) file.writeUInt32LE(FREE, miniFat + index * 4);
  const directory = SECTOR * 2; // sector 1
  writeDirectoryEntry(file, directory, {
    name: 'Root Entry',
    type: 5,
    right: FREE,
    child: specs.length > 0 ? 1 : FREE,
    start: miniStreamSectors > 0 ? 3 : END_OF_CHAIN,
    size: totalMini * MINI_SECTOR,
  });
  let nextMini = 0;
  specs.forEach((spec, index) => {
    const count = miniSectors[index] ?? 0;
    for (let slot = 0; slot < count; slot += 1) {
      const mini = nextMini + slot;
      file.writeUInt32LE(slot === count - 1 ? END_OF_CHAIN : mini + 1, miniFat + mini * 4);
    }
    Buffer.from(spec.data).copy(file, SECTOR * 4 + nextMini * MINI_SECTOR);
    writeDirectoryEntry(file, directory + (index + 1) * 128, {
      name: spec.name,
      type: 2,
      right: index < specs.length - 1 ? index + 2 : FREE,
      child: FREE,
      start: count > 0 ? nextMini : END_OF_CHAIN,
      size: spec.data.byteLength,
    });
    nextMini += count;
  });
  for (let index = specs.length + 1; index < 4; index += 1) {
    const at = directory + index * 128;
    file.writeUInt32LE(FREE, at + 68);
    file.writeUInt32LE(FREE, at + 72);
    file.writeUInt32LE(FREE, at + 76);
  }
  return file;
}
