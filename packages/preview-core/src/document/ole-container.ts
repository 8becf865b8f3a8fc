import { PreviewError } from '../errors.js';

/** The 8 bytes every OLE2 compound file (doc, xls, ppt, encrypted OOXML) starts with. */
const SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const END_OF_CHAIN = 0xfffffffe;
const FREE_SECTOR = 0xffffffff;
const NO_ENTRY = 0xffffffff;
const HEADER_DIFAT_ENTRIES = 109;
const ENTRY_BYTES = 128;

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

/** Sector numbers of the FAT, from the header's DIFAT and the DIFAT chain after it. */
function fatSectors(layout: Layout): number[] {
  const { data, sectorSize } = layout;
  const count = data.getUint32(44, true);
  if (count > layout.sectorCount)
    throw damaged(`it declares ${count} FAT sectors in a file of ${layout.sectorCount}`);
  const sectors: number[] = [];
  for (let index = 0; index < HEADER_DIFAT_ENTRIES && sectors.length < count; index += 1) {
    sectors.push(data.getUint32(76 + index * 4, true));
  }
  let difat = data.getUint32(68, true);
  const perSector = sectorSize / 4 - 1;
  for (let hops = 0; sectors.length < count; hops += 1) {
    if (difat === END_OF_CHAIN || difat === FREE_SECTOR || hops > layout.sectorCount) {
      throw damaged('its DIFAT chain ends early or loops');
    }
    const base = sectorOffset(layout, difat);
    for (let index = 0; index < perSector && sectors.length < count; index += 1) {
      sectors.push(data.getUint32(base + index * 4, true));
    }
    difat = data.getUint32(base + perSector * 4, true);
  }
  return sectors;
}

function readFat(layout: Layout): Uint32Array {
  const sectors = fatSectors(layout);
  const perSector = layout.sectorSize / 4;
  const fat = new Uint32Array(sectors.length * perSector);
  sectors.forEach((sector, index) => {
    const base = sectorOffset(layout, sector);
    for (let slot = 0; slot < perSector; slot += 1) {
      fat[index * perSector + slot] = layout.data.getUint32(base + slot * 4, true);
    }
  });
  return fat;
}

function chain(layout: Layout, fat: Uint32Array, start: number): number[] {
  const sectors: number[] = [];
  let sector = start;
  while (sector !== END_OF_CHAIN) {
    if (sectors.length > layout.sectorCount || sector >= fat.length)
      throw damaged('its directory chain loops or breaks');
    sectors.push(sector);
    sector = fat[sector] ?? END_OF_CHAIN;
  }
  return sectors;
}

interface DirectoryEntry {
  readonly name: string;
  readonly left: number;
  readonly right: number;
  readonly child: number;
}

function readDirectory(layout: Layout, fat: Uint32Array): DirectoryEntry[] {
  const entries: DirectoryEntry[] = [];
  for (const sector of chain(layout, fat, layout.data.getUint32(48, true))) {
    const base = sectorOffset(layout, sector);
    for (let offset = 0; offset + ENTRY_BYTES <= layout.sectorSize; offset += ENTRY_BYTES) {
      const at = base + offset;
      const nameBytes = Math.min(64, Math.max(0, layout.data.getUint16(at + 64, true) - 2));
      const raw = new Uint8Array(layout.data.buffer, layout.data.byteOffset + at, nameBytes);
      entries.push({
        name: new TextDecoder('utf-16le').decode(raw),
        left: layout.data.getUint32(at + 68, true),
        right: layout.data.getUint32(at + 72, true),
        child: layout.data.getUint32(at + 76, true),
      });
    }
  }
  return entries;
}

/** Names of the root storage's direct children: walks the red-black tree of siblings under the root. */
function rootChildren(entries: readonly DirectoryEntry[]): string[] {
  const root = entries[0];
  if (!root) throw damaged('its directory is empty');
  const names: string[] = [];
  const seen = new Set<number>();
  const pending = [root.child];
  while (pending.length > 0) {
    const index = pending.pop() ?? NO_ENTRY;
    if (index === NO_ENTRY || seen.has(index)) continue;
    const entry = entries[index];
    if (!entry) throw damaged(`its directory points at missing entry ${index}`);
    seen.add(index);
    names.push(entry.name);
    pending.push(entry.left, entry.right);
  }
  return names;
}

/**
 * Names of the streams and storages at the top of an OLE2 compound file (e.g. `WordDocument`,
 * `Workbook`, `PowerPoint Document`). Only the header, FAT and directory are read; every chain is
 * bounded by the file's sector count.
 * @throws {PreviewError} `UNREADABLE_INPUT` when the file is truncated or its structures are damaged.
 */
export function listOleRootNames(bytes: Uint8Array): string[] {
  const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shift = data.getUint16(30, true);
  if (shift !== 9 && shift !== 12) throw damaged(`its sector size 2^${shift} is neither 512 nor 4096 bytes`);
  const sectorSize = 1 << shift;
  const sectorCount = Math.floor(bytes.byteLength / sectorSize) - 1;
  if (sectorCount < 1) throw damaged('it has no sectors after the header');
  const layout = { data, sectorSize, sectorCount };
  return rootChildren(readDirectory(layout, readFat(layout)));
}
