import { writeCompoundHeader, writeDirectoryEntry } from './container-samples.js';

const SECTOR = 512;
const PER_SECTOR = SECTOR / 4;
const HEADER_FAT_ENTRIES = 109;
const END_OF_CHAIN = 0xfffffffe;
const FREE = 0xffffffff;
const FAT_SECTOR = 0xfffffffd;
const DIFAT_SECTOR = 0xfffffffc;

/** What {@link makeLargeCompoundFile} puts under the root storage. */
export interface LargeCompoundFileSpec {
  /**
   * Streams in regular sectors, each at least 4096 bytes (the mini-stream cutoff): `data` at their
   * start, zeros after it.
   */
  readonly streams: readonly { readonly name: string; readonly size: number; readonly data?: Uint8Array }[];
  /** Empty streams named `Extra n` added after `streams`, to make a long directory. @default 0 */
  readonly extraEntries?: number;
}

/** FAT and DIFAT sector counts for `dataSectors` other sectors: a fixed point, as the FAT maps itself. */
function tableSizes(dataSectors: number): { fat: number; difat: number } {
  let fat = 1;
  let difat = 0;
  for (;;) {
    const nextFat = Math.ceil((dataSectors + fat + difat) / PER_SECTOR);
    const nextDifat = Math.max(0, Math.ceil((nextFat - HEADER_FAT_ENTRIES) / (PER_SECTOR - 1)));
    if (nextFat === fat && nextDifat === difat) return { fat, difat };
    fat = nextFat;
    difat = nextDifat;
  }
}

/**
 * An OLE2 compound file of any size (MS-CFB version 3, 512-byte sectors), unlike the minimal
 * {@link makeCompoundFile}: sectors 0.. hold the FAT, then the DIFAT sectors the FAT needs past the
 * header's 109 entries, then the directory, then each stream's regular sectors. A 50 MB stream
 * gives a FAT of about 800 sectors; 100 000 `extraEntries` a directory of 25 000 sectors.
 */
export function makeLargeCompoundFile(spec: LargeCompoundFileSpec): Uint8Array {
  const { streams, extraEntries = 0 } = spec;
  const entryCount = 1 + streams.length + extraEntries;
  const directorySectors = Math.ceil(entryCount / 4);
  const streamSectors = streams.map((stream) => Math.ceil(stream.size / SECTOR));
  const dataSectors = directorySectors + streamSectors.reduce((sum, count) => sum + count, 0);
  const { fat, difat } = tableSizes(dataSectors);
  const total = fat + difat + dataSectors;
  const file = Buffer.alloc(SECTOR * (1 + total));
  const sectorAt = (sector: number) => SECTOR * (1 + sector);
  const setFat = (sector: number, value: number) =>
    file.writeUInt32LE(value, sectorAt(Math.floor(sector / PER_SECTOR)) + (sector % PER_SECTOR) * 4);
  const chain = (first: number, count: number) => {
    for (let index = 0; index < count; index += 1) {
      setFat(first + index, index === count - 1 ? END_OF_CHAIN : first + index + 1);
    }
  };
  writeCompoundHeader(file, { fatSectors: fat, directoryStart: fat + difat, difatSectors: difat });
  for (let sector = total; sector < fat * PER_SECTOR; sector += 1) setFat(sector, FREE);
  for (let sector = 0; sector < fat; sector += 1) setFat(sector, FAT_SECTOR);
  for (let index = 0; index < difat; index += 1) {
    const base = sectorAt(fat + index);
    for (let slot = 0; slot < PER_SECTOR - 1; slot += 1) {
      const fatSector = HEADER_FAT_ENTRIES + index * (PER_SECTOR - 1) + slot;
      file.writeUInt32LE(fatSector < fat ? fatSector : FREE, base + slot * 4);
    }
    file.writeUInt32LE(index === difat - 1 ? END_OF_CHAIN : fat + index + 1, base + SECTOR - 4);
    setFat(fat + index, DIFAT_SECTOR);
  }
  const directory = fat + difat;
  chain(directory, directorySectors);
  const entryAt = (index: number) => sectorAt(directory + Math.floor(index / 4)) + (index % 4) * 128;
  const rightOf = (index: number) => (index + 1 < entryCount ? index + 1 : FREE);
  const child = entryCount > 1 ? 1 : FREE;
  writeDirectoryEntry(file, entryAt(0), {
    name: 'Root Entry',
    type: 5,
    right: FREE,
    child,
    start: END_OF_CHAIN,
    size: 0,
  });
  let next = directory + directorySectors;
  streams.forEach((stream, index) => {
    const count = streamSectors[index] ?? 0;
    chain(next, count);
    if (stream.data) Buffer.from(stream.data.subarray(0, stream.size)).copy(file, sectorAt(next));
    const entry = {
      name: stream.name,
      type: 2,
      right: rightOf(index + 1),
      child: FREE,
      start: next,
      size: stream.size,
    };
    writeDirectoryEntry(file, entryAt(index + 1), entry);
    next += count;
  });
  for (let index = 1 + streams.length; index < entryCount; index += 1) {
    const entry = {
      name: `Extra ${index}`,
      type: 2,
      right: rightOf(index),
      child: FREE,
      start: END_OF_CHAIN,
      size: 0,
    };
    writeDirectoryEntry(file, entryAt(index), entry);
  }
  return file;
}
