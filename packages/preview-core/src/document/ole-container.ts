import { PreviewError } from '../errors.js';
import { createTimeSlicer, type TimeSlicer } from './time-slicer.js';

// Our own reader rather than the cfb package: detection needs only the root directory's stream
// names and a few small streams, every sector chain is bounded and checked for cycles on untrusted
// input, and the directory walk yields to the event loop in time slices; cfb parses the whole file
// synchronously into memory first.
//
// Lenient as LibreOffice is: a chain that breaks off (a pointer past the end of a truncated file, a
// free slot, a declared size longer than the chain) ends there, and a directory pointer to a missing
// entry is skipped, so a slightly damaged file still reaches the converter, which decides. What
// protects this reader stays strict: every walk is bounded by the sector count, and a chain that
// loops is refused.

/** The 8 bytes every OLE2 compound file (doc, xls, ppt, encrypted OOXML) starts with. */
const SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const END_OF_CHAIN = 0xfffffffe;
const FREE_SECTOR = 0xffffffff;
const NO_ENTRY = 0xffffffff;
const HEADER_DIFAT_ENTRIES = 109;
const ENTRY_BYTES = 128;
const STREAM_ENTRY = 2;
const UTF16 = new TextDecoder('utf-16le');

/** True when `bytes` start with the OLE2 compound-file signature. */
export function looksLikeOle(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 512 && SIGNATURE.every((value, index) => bytes[index] === value);
}

function damaged(reason: string): PreviewError {
  return new PreviewError('UNREADABLE_INPUT', `expected a complete OLE2 compound file but ${reason}`);
}

interface Layout {
  readonly data: DataView;
  readonly sectorSize: number;
  readonly sectorCount: number;
}

function sectorOffset(layout: Layout, sector: number): number {
  if (sector >= layout.sectorCount) throw damaged(`sector ${sector} lies past the end of the file`);
  return (sector + 1) * layout.sectorSize;
}

function isInFile(layout: Layout, sector: number): boolean {
  return sector < layout.sectorCount;
}

/**
 * Sector numbers of the FAT, from the header's DIFAT and the DIFAT chain after it: at most one per
 * sector of the file, and only as many as a DIFAT chain that breaks off still names.
 */
function fatSectors(layout: Layout): number[] {
  const { data, sectorSize } = layout;
  const count = Math.min(data.getUint32(44, true), layout.sectorCount);
  const sectors: number[] = [];
  for (let index = 0; index < HEADER_DIFAT_ENTRIES && sectors.length < count; index += 1) {
    sectors.push(data.getUint32(76 + index * 4, true));
  }
  let difat = data.getUint32(68, true);
  const perSector = sectorSize / 4 - 1;
  for (let hops = 0; sectors.length < count; hops += 1) {
    if (!isInFile(layout, difat) || hops > layout.sectorCount) break;
    const base = sectorOffset(layout, difat);
    for (let index = 0; index < perSector && sectors.length < count; index += 1) {
      sectors.push(data.getUint32(base + index * 4, true));
    }
    difat = data.getUint32(base + perSector * 4, true);
  }
  return sectors;
}

async function readFat(layout: Layout, slicer: TimeSlicer): Promise<Uint32Array> {
  const sectors = fatSectors(layout);
  const perSector = layout.sectorSize / 4;
  const fat = new Uint32Array(sectors.length * perSector).fill(FREE_SECTOR);
  for (const [index, sector] of sectors.entries()) {
    if (slicer.due()) await slicer.pause();
    // A FAT sector past the end of a truncated file: its slots stay free, their chains end there.
    if (!isInFile(layout, sector)) continue;
    const base = sectorOffset(layout, sector);
    for (let slot = 0; slot < perSector; slot += 1) {
      fat[index * perSector + slot] = layout.data.getUint32(base + slot * 4, true);
    }
  }
  return fat;
}

/** A sector allocation table (the FAT, or the mini FAT for mini sectors) of `size` slots. */
interface SectorTable {
  readonly size: number;
  /** The sector after `sector` in its chain. */
  next(sector: number): number;
}

/** The FAT as a table of the sectors that lie in the file. */
function fatTable(fat: Uint32Array, layout: Layout): SectorTable {
  return { size: Math.min(fat.length, layout.sectorCount), next: (sector) => fat[sector] ?? END_OF_CHAIN };
}

/**
 * The chain starting at `start`, walked only as far as asked: the returned function gives the
 * `index`th sector, or undefined past the chain's end. A pointer outside the table (past the end of
 * the file, a free slot) ends the chain.
 * @throws {PreviewError} `UNREADABLE_INPUT` when the chain loops or passes `limit` sectors.
 */
function walkChain(table: SectorTable, start: number, limit: number): (index: number) => number | undefined {
  const sectors: number[] = [];
  const seen = new Set<number>();
  let sector = start;
  return (index) => {
    while (sectors.length <= index && sector < table.size) {
      if (sectors.length > limit || seen.has(sector)) throw damaged('a sector chain loops');
      seen.add(sector);
      sectors.push(sector);
      sector = table.next(sector);
    }
    return sectors[index];
  };
}

/** The sectors of a chain, at most `limit` of them, stopping early once `wanted` are known. */
function chain(
  table: SectorTable,
  start: number,
  limit: number,
  wanted = Number.POSITIVE_INFINITY,
): number[] {
  const at = walkChain(table, start, limit);
  const sectors: number[] = [];
  for (let sector = at(0); sector !== undefined && sectors.length < wanted; sector = at(sectors.length)) {
    sectors.push(sector);
  }
  return sectors;
}

/**
 * Copies the first `length` bytes of blocks of `unit` bytes starting at `offsets` in `bytes`, or
 * fewer when the blocks (a chain that broke off) hold fewer.
 */
function copyBlocks(bytes: Uint8Array, offsets: readonly number[], unit: number, length: number): Uint8Array {
  const result = new Uint8Array(Math.min(length, offsets.length * unit));
  offsets.forEach((offset, index) => {
    const from = index * unit;
    const count = Math.min(unit, result.byteLength - from, bytes.byteLength - offset);
    if (count > 0) result.set(bytes.subarray(offset, offset + count), from);
  });
  return result;
}

interface DirectoryEntry {
  readonly name: string;
  readonly type: number;
  readonly left: number;
  readonly right: number;
  readonly child: number;
  readonly start: number;
  readonly size: number;
}

function readEntry(data: DataView, at: number): DirectoryEntry {
  const nameBytes = Math.min(64, Math.max(0, data.getUint16(at + 64, true) - 2));
  const raw = new Uint8Array(data.buffer, data.byteOffset + at, nameBytes);
  return {
    name: UTF16.decode(raw),
    type: data.getUint8(at + 66),
    left: data.getUint32(at + 68, true),
    right: data.getUint32(at + 72, true),
    child: data.getUint32(at + 76, true),
    start: data.getUint32(at + 116, true),
    // Version 3 files may leave garbage in the high half; no stream here can pass 4 GiB anyway.
    size: data.getUint32(at + 120, true),
  };
}

async function readDirectory(
  layout: Layout,
  fat: Uint32Array,
  slicer: TimeSlicer,
): Promise<DirectoryEntry[]> {
  const entries: DirectoryEntry[] = [];
  const sectorAt = walkChain(fatTable(fat, layout), layout.data.getUint32(48, true), layout.sectorCount);
  for (let index = 0, sector = sectorAt(0); sector !== undefined; index += 1, sector = sectorAt(index)) {
    if (slicer.due()) await slicer.pause();
    const base = sectorOffset(layout, sector);
    for (let offset = 0; offset + ENTRY_BYTES <= layout.sectorSize; offset += ENTRY_BYTES) {
      entries.push(readEntry(layout.data, base + offset));
    }
  }
  return entries;
}

/** The names of the root storage's direct children, and its streams by name (the first of a name). */
interface RootChildren {
  readonly names: Set<string>;
  readonly streams: Map<string, DirectoryEntry>;
}

/** The root storage's direct children: walks the red-black tree of siblings under the root. */
async function rootChildren(entries: readonly DirectoryEntry[], slicer: TimeSlicer): Promise<RootChildren> {
  const root = entries[0];
  if (!root) throw damaged('its directory is empty');
  const children: RootChildren = { names: new Set(), streams: new Map() };
  const seen = new Set<number>();
  const pending = [root.child];
  while (pending.length > 0) {
    if (slicer.due()) await slicer.pause();
    const index = pending.pop() ?? NO_ENTRY;
    if (index === NO_ENTRY || seen.has(index)) continue;
    const entry = entries[index];
    if (!entry) continue;
    seen.add(index);
    children.names.add(entry.name);
    const canonical = CANONICAL_NAMES.get(entry.name.toUpperCase());
    if (canonical) children.names.add(canonical);
    const key = entry.name.toUpperCase();
    if (entry.type === STREAM_ENTRY && !children.streams.has(key)) children.streams.set(key, entry);
    pending.push(entry.left, entry.right);
  }
  return children;
}

/**
 * Names the previews look for. Compound-file names compare without regard to case (the format
 * compares their upper-case forms), so a `WORKBOOK` stream is also listed under `Workbook`.
 */
const CANONICAL_NAMES: ReadonlyMap<string, string> = new Map(
  [
    'WordDocument',
    'Workbook',
    'Book',
    'PowerPoint Document',
    'Current User',
    'EncryptedSummary',
    'EncryptionInfo',
    'EncryptedPackage',
  ].map((name) => [name.toUpperCase(), name]),
);

/** A parsed OLE2 compound file: the names at its top and the bytes of its top-level streams. */
export interface OleContainer {
  /**
   * Names of the root storage's children, e.g. `WordDocument`, `Workbook`, `PowerPoint Document`;
   * a known name written in other case is listed in both spellings.
   */
  readonly rootNames: ReadonlySet<string>;
  /**
   * The first `maxBytes` bytes (all when shorter) of the top-level stream `name` (in any case), as far as its sector
   * chain reaches, or undefined when there is no such stream.
   * @throws {PreviewError} `UNREADABLE_INPUT` when its sector chain loops.
   */
  readStream(name: string, maxBytes: number): Uint8Array | undefined;
}

interface Parsed {
  readonly bytes: Uint8Array;
  readonly layout: Layout;
  readonly fat: Uint32Array;
  readonly root: DirectoryEntry;
}

/** The first `length` bytes of the chain of regular sectors starting at `start`. */
function readSectors(parsed: Parsed, start: number, length: number): Uint8Array {
  const { layout, fat, bytes } = parsed;
  const sectors = chain(
    fatTable(fat, layout),
    start,
    layout.sectorCount,
    Math.ceil(length / layout.sectorSize),
  );
  const offsets = sectors.map((sector) => sectorOffset(layout, sector));
  return copyBlocks(bytes, offsets, layout.sectorSize, length);
}

/**
 * The mini FAT, read slot by slot where a chain needs it: its sectors are walked only as far as the
 * slots asked for, so a short stream costs a few reads whatever the size of the mini FAT.
 */
function miniFatTable(parsed: Parsed): SectorTable {
  const { layout, fat } = parsed;
  const perSector = layout.sectorSize / 4;
  const sectors = Math.min(layout.data.getUint32(64, true), layout.sectorCount);
  const sectorAt = walkChain(fatTable(fat, layout), layout.data.getUint32(60, true), layout.sectorCount);
  return {
    size: sectors * perSector,
    next(miniSector) {
      const sector = sectorAt(Math.floor(miniSector / perSector));
      if (sector === undefined) return END_OF_CHAIN;
      return layout.data.getUint32(sectorOffset(layout, sector) + (miniSector % perSector) * 4, true);
    },
  };
}

/** A stream under the mini-stream cutoff: its 64-byte mini sectors live inside the root's stream. */
function readMiniStream(parsed: Parsed, entry: DirectoryEntry, length: number): Uint8Array {
  const { layout, fat, root, bytes } = parsed;
  const miniShift = layout.data.getUint16(32, true);
  if (miniShift !== 6) throw damaged(`its mini sector size 2^${miniShift} is not 64 bytes`);
  const miniSize = 1 << miniShift;
  const miniFat = miniFatTable(parsed);
  const containerSectorAt = walkChain(fatTable(fat, layout), root.start, layout.sectorCount);
  const miniSectors = chain(miniFat, entry.start, miniFat.size, Math.ceil(length / miniSize));
  const offsets: number[] = [];
  // The stream ends where a mini sector lies past the end of the mini stream.
  for (const miniSector of miniSectors) {
    const position = miniSector * miniSize;
    const sector = containerSectorAt(Math.floor(position / layout.sectorSize));
    if (sector === undefined || position + miniSize > root.size) break;
    offsets.push(sectorOffset(layout, sector) + (position % layout.sectorSize));
  }
  return copyBlocks(bytes, offsets, miniSize, length);
}

/**
 * Parses the header, FAT and directory of an OLE2 compound file; streams are read only when asked
 * for, and every chain is bounded by the file's sector count. Large tables are read in slices that
 * let the event loop serve other work in between.
 * @throws {PreviewError} `UNREADABLE_INPUT` when the header is not that of a compound file, there is
 * no root entry, or a chain loops.
 */
export async function openOleContainer(bytes: Uint8Array): Promise<OleContainer> {
  const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shift = data.getUint16(30, true);
  if (shift !== 9 && shift !== 12) throw damaged(`its sector size 2^${shift} is neither 512 nor 4096 bytes`);
  const sectorSize = 1 << shift;
  const sectorCount = Math.floor(bytes.byteLength / sectorSize) - 1;
  if (sectorCount < 1) throw damaged('it has no sectors after the header');
  const layout = { data, sectorSize, sectorCount };
  const slicer = createTimeSlicer();
  const fat = await readFat(layout, slicer);
  const entries = await readDirectory(layout, fat, slicer);
  const { names, streams } = await rootChildren(entries, slicer);
  const root = entries[0] as DirectoryEntry;
  const parsed: Parsed = { bytes, layout, fat, root };
  const cutoff = data.getUint32(56, true);
  return {
    rootNames: names,
    readStream(name, maxBytes) {
      const entry = streams.get(name.toUpperCase());
      if (!entry) return undefined;
      const length = Math.min(entry.size, maxBytes);
      if (length === 0) return new Uint8Array(0);
      return entry.size < cutoff
        ? readMiniStream(parsed, entry, length)
        : readSectors(parsed, entry.start, length);
    },
  };
}
