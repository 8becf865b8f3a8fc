import { makeLargeCompoundFile } from './large-compound-file.js';
import {
  ByteWriter,
  binTable,
  characterFkp,
  documentProperties,
  FKP_SIZE,
  fontTable,
  normalStylesheet,
  PARAGRAPHS_PER_FKP,
  paragraphFkp,
  sectionTable,
} from './word6-tables.js';

/** What {@link makeWord6Document} writes. */
export interface Word6DocumentSpec {
  /**
   * The paragraphs, in order. Characters outside Latin-1 and control characters other than tab
   * become `?`; a form feed (`\f`) is kept, it is Word's page break.
   */
  readonly paragraphs: readonly string[];
  /** `word6` writes nFib 101 (Word 6.0), `word95` nFib 104 (Word 95, also called Word 7). */
  readonly version: 'word6' | 'word95';
}

/** The Word 6/95 FIB's magic number. */
export const WORD6_IDENTIFIER = 0xa5dc;
/** nFib of each version. */
export const WORD6_FIB_VERSIONS = { word6: 101, word95: 104 } as const;
/** Where the text starts in the `WordDocument` stream, after the FIB (as Word 6 writes it). */
export const WORD6_TEXT_START = 0x300;
/** The smallest stream kept in regular sectors of a compound file. */
const MINI_STREAM_CUTOFF = 4096;

/** Offsets of the Word 6/95 FIB fields this generator sets (the rest stay zero). */
export const WORD6_FIB = {
  wIdent: 0x00,
  nFib: 0x02,
  nProduct: 0x04,
  lid: 0x06,
  flags: 0x0a,
  nFibBack: 0x0c,
  fcMin: 0x18,
  fcMac: 0x1c,
  cbMac: 0x20,
  ccpText: 0x34,
  fcStshfOrig: 0x58,
  fcStshf: 0x60,
  fcPlcfsed: 0x88,
  fcPlcfbteChpx: 0xb8,
  fcPlcfbtePapx: 0xc0,
  fcSttbfffn: 0xd0,
  fcDop: 0x150,
  pnChpFirst: 0x18a,
  pnPapFirst: 0x18c,
  cpnBteChp: 0x18e,
  cpnBtePap: 0x190,
} as const;

/** The text in the 8-bit Windows code page: paragraphs, each closed by a paragraph mark (13). */
function encodeText(paragraphs: readonly string[]): Buffer {
  const codes: number[] = [];
  for (const paragraph of paragraphs) {
    for (const character of paragraph) {
      const code = character.codePointAt(0) ?? 0x3f;
      const printable = code === 0x09 || code === 0x0c || (code >= 0x20 && code < 0x7f) || code >= 0xa0;
      codes.push(printable && code <= 0xff ? code : 0x3f);
    }
    codes.push(0x0d);
  }
  return Buffer.from(codes);
}

/** FC boundaries of the paragraphs: the text start, then the FC after each paragraph mark. */
function paragraphBoundaries(text: Buffer): number[] {
  const boundaries = [WORD6_TEXT_START];
  text.forEach((code, index) => {
    if (code === 0x0d) boundaries.push(WORD6_TEXT_START + index + 1);
  });
  return boundaries;
}

interface TableLocation {
  readonly fc: number;
  readonly lcb: number;
}

function writeTable(stream: ByteWriter, table: Buffer): TableLocation {
  stream.align(2);
  const fc = stream.size;
  stream.bytes(table);
  return { fc, lcb: table.byteLength };
}

/** The FKP pages after the text: one character FKP, then paragraph FKPs of 40 paragraphs each. */
function writeFkps(stream: ByteWriter, text: Buffer) {
  const textEnd = WORD6_TEXT_START + text.byteLength;
  stream.align(FKP_SIZE);
  const characterPage = stream.size / FKP_SIZE;
  stream.bytes(characterFkp(WORD6_TEXT_START, textEnd));
  const boundaries = paragraphBoundaries(text);
  const paragraphPages: { firstFc: number; page: number }[] = [];
  for (let first = 0; first < boundaries.length - 1; first += PARAGRAPHS_PER_FKP) {
    const slice = boundaries.slice(first, first + PARAGRAPHS_PER_FKP + 1);
    paragraphPages.push({ firstFc: slice[0] ?? textEnd, page: stream.size / FKP_SIZE });
    stream.bytes(paragraphFkp(slice));
  }
  return {
    characters: {
      table: binTable([{ firstFc: WORD6_TEXT_START, page: characterPage }], textEnd),
      first: characterPage,
      count: 1,
    },
    paragraphs: {
      table: binTable(paragraphPages, textEnd),
      first: paragraphPages[0]?.page ?? 0,
      count: paragraphPages.length,
    },
  };
}

/** Fills the FIB at the start of `stream` once everything after it is written. */
function writeFib(
  fib: Buffer,
  fields: { nFib: number; textLength: number; streamLength: number },
  tables: Readonly<
    Record<
      'fcStshf' | 'fcPlcfsed' | 'fcPlcfbteChpx' | 'fcPlcfbtePapx' | 'fcSttbfffn' | 'fcDop',
      TableLocation
    >
  >,
  bins: ReturnType<typeof writeFkps>,
): void {
  fib.writeUInt16LE(WORD6_IDENTIFIER, WORD6_FIB.wIdent);
  fib.writeUInt16LE(fields.nFib, WORD6_FIB.nFib);
  fib.writeUInt16LE(0xc02d, WORD6_FIB.nProduct);
  fib.writeUInt16LE(0x0409, WORD6_FIB.lid); // English (United States)
  fib.writeUInt16LE(0, WORD6_FIB.flags); // not a template, not complex, not encrypted
  fib.writeUInt16LE(fields.nFib, WORD6_FIB.nFibBack);
  fib.writeUInt32LE(WORD6_TEXT_START, WORD6_FIB.fcMin);
  fib.writeUInt32LE(WORD6_TEXT_START + fields.textLength, WORD6_FIB.fcMac);
  fib.writeUInt32LE(fields.streamLength, WORD6_FIB.cbMac);
  fib.writeUInt32LE(fields.textLength, WORD6_FIB.ccpText);
  fib.writeUInt32LE(tables.fcStshf.fc, WORD6_FIB.fcStshfOrig);
  fib.writeUInt32LE(tables.fcStshf.lcb, WORD6_FIB.fcStshfOrig + 4);
  for (const [name, location] of Object.entries(tables)) {
    const offset = WORD6_FIB[name as keyof typeof tables];
    fib.writeUInt32LE(location.fc, offset);
    fib.writeUInt32LE(location.lcb, offset + 4);
  }
  fib.writeUInt16LE(bins.characters.first, WORD6_FIB.pnChpFirst);
  fib.writeUInt16LE(bins.paragraphs.first, WORD6_FIB.pnPapFirst);
  fib.writeUInt16LE(bins.characters.count, WORD6_FIB.cpnBteChp);
  fib.writeUInt16LE(bins.paragraphs.count, WORD6_FIB.cpnBtePap);
}

/** The `WordDocument` stream of a Word 6/95 document holding `spec.paragraphs`. */
export function makeWord6Stream(spec: Word6DocumentSpec): Buffer {
  const text = encodeText(spec.paragraphs);
  const stream = new ByteWriter().bytes(Buffer.alloc(WORD6_TEXT_START)).bytes(text);
  const bins = writeFkps(stream, text);
  const tables = {
    fcStshf: writeTable(stream, normalStylesheet()),
    fcPlcfsed: writeTable(stream, sectionTable(text.byteLength)),
    fcPlcfbteChpx: writeTable(stream, bins.characters.table),
    fcPlcfbtePapx: writeTable(stream, bins.paragraphs.table),
    fcSttbfffn: writeTable(stream, fontTable('Times New Roman')),
    fcDop: writeTable(
      stream,
      documentProperties({ paragraphs: spec.paragraphs.length, characters: text.byteLength }),
    ),
  };
  stream.align(2);
  if (stream.size < MINI_STREAM_CUTOFF) stream.bytes(Buffer.alloc(MINI_STREAM_CUTOFF - stream.size));
  const result = stream.result();
  const fields = {
    nFib: WORD6_FIB_VERSIONS[spec.version],
    textLength: text.byteLength,
    streamLength: result.byteLength,
  };
  writeFib(result, fields, tables, bins);
  return result;
}

/**
 * A Word 6.0 or Word 95 `.doc` written from the documented binary format (LibreOffice only reads
 * these): an OLE2 compound file whose `WordDocument` stream holds a Word 6/95 FIB (wIdent 0xA5DC,
 * nFib 101 or 104), the text stored once in the 8-bit code page (a non-complex file), FKPs and bin
 * tables for character and paragraph runs, a one-style stylesheet, a one-section table, a font table
 * and a DOP. It has no `0Table`/`1Table` stream, which is how readers tell it from Word 97.
 */
export function makeWord6Document(spec: Word6DocumentSpec): Uint8Array {
  const data = makeWord6Stream(spec);
  return makeLargeCompoundFile({ streams: [{ name: 'WordDocument', size: data.byteLength, data }] });
}

/**
 * Paragraphs for `pageCount` pages of `paragraphsPerPage` short paragraphs each ("Page 2
 * paragraph 7"), every page after the first opened by a page break, so a converted document has
 * exactly `pageCount` pages whatever the fonts (as long as a page holds `paragraphsPerPage` lines).
 */
export function pagedParagraphs(pageCount: number, paragraphsPerPage: number): string[] {
  return Array.from({ length: pageCount * paragraphsPerPage }, (_, index) => {
    const page = Math.floor(index / paragraphsPerPage) + 1;
    const line = (index % paragraphsPerPage) + 1;
    return `${line === 1 && page > 1 ? '\f' : ''}Page ${page} paragraph ${line}`;
  });
}
