/** Kinds of small structural damage LibreOffice reads past in an OLE2 compound file. */
export type CompoundDamage =
  /** The last 100 bytes are cut off, as by an interrupted download. */
  | 'truncated'
  /** The header declares one FAT sector more than the file has (its DIFAT slot is free). */
  | 'extra-fat-sector'
  /** The directory declares `stream` 500 bytes longer than its sector chain. */
  | 'stream-longer-than-chain'
  /** A sibling pointer of the directory entry after `stream` names an entry that does not exist. */
  | 'sibling-to-missing-entry'
  /** `stream` is renamed in upper case (`WORKBOOK`) and the root's class id zeroed. */
  | 'stream-name-case'
  /**
   * `stream` is renamed to `Xyzzy` padded to the same length (the file no longer says which
   * application wrote it) and the root's class id replaced by a made-up one.
   */
  | 'stream-renamed';

const ENTRY_BYTES = 128;

/** Byte offsets of the directory entries, following the directory's chain through the FAT. */
function directoryEntryOffsets(bytes: Buffer): number[] {
  const sectorSize = 1 << bytes.readUInt16LE(30);
  const firstFatSector = bytes.readUInt32LE(76);
  const fatAt = (sector: number) => bytes.readUInt32LE((firstFatSector + 1) * sectorSize + sector * 4);
  const offsets: number[] = [];
  for (let sector = bytes.readUInt32LE(48), hops = 0; sector < 0xfffffffa && hops < 1000; hops += 1) {
    for (let offset = 0; offset < sectorSize; offset += ENTRY_BYTES) {
      offsets.push((sector + 1) * sectorSize + offset);
    }
    sector = fatAt(sector);
  }
  return offsets;
}

function entryName(bytes: Buffer, offset: number): string {
  const length = Math.max(0, bytes.readUInt16LE(offset + 64) - 2);
  return bytes.subarray(offset, offset + length).toString('utf16le');
}

/**
 * A copy of a compound file (a doc, xls or ppt LibreOffice wrote, whose FAT fits one sector) with one
 * small structural damage of the kind desktop suites read past; see {@link CompoundDamage}.
 * @throws Error when `stream` is not a top-level entry.
 */
export function damageCompoundFile(
  original: Uint8Array,
  damage: CompoundDamage,
  stream = 'Workbook',
): Buffer {
  const bytes = Buffer.from(original);
  if (damage === 'truncated') return bytes.subarray(0, bytes.byteLength - 100);
  if (damage === 'extra-fat-sector') {
    const count = bytes.readUInt32LE(44);
    bytes.writeUInt32LE(count + 1, 44);
    bytes.writeUInt32LE(0xffffffff, 76 + count * 4);
    return bytes;
  }
  const offsets = directoryEntryOffsets(bytes);
  const index = offsets.findIndex((offset) => entryName(bytes, offset) === stream);
  const offset = offsets[index];
  if (offset === undefined) throw new Error(`no directory entry named ${stream}`);
  if (damage === 'stream-name-case' || damage === 'stream-renamed') {
    const root = offsets[0] as number;
    const name = damage === 'stream-name-case' ? stream.toUpperCase() : 'Xyzzy'.padEnd(stream.length, 'z');
    bytes.write(name, offset, 'utf16le');
    const classId = damage === 'stream-name-case' ? '00'.repeat(16) : 'ffeeddccbbaa99887766554433221100';
    Buffer.from(classId, 'hex').copy(bytes, root + 80);
    return bytes;
  }
  if (damage === 'stream-longer-than-chain') {
    bytes.writeUInt32LE(bytes.readUInt32LE(offset + 120) + 500, offset + 120);
    return bytes;
  }
  const next = offsets[index + 1];
  if (next === undefined) throw new Error(`no directory entry after ${stream}`);
  bytes.writeUInt32LE(offsets.length + 40, next + 68);
  return bytes;
}
