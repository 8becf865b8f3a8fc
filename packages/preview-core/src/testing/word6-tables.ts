/**
 * The tables of a Word 6/95 `WordDocument` stream besides the FIB and the text, written from the
 * Word 6 binary format facts: 8-bit strings, 2-byte page numbers in the bin tables, 7-byte BX
 * entries in paragraph FKPs, 12-byte section descriptors and an 84-byte DOP.
 */

/** Bytes of one formatted disk page (FKP); FKPs start on 512-byte boundaries of the stream. */
export const FKP_SIZE = 512;
/** Paragraph runs written per paragraph FKP: 4 + 7 bytes each, with room for the shared PAPX. */
export const PARAGRAPHS_PER_FKP = 40;

/** A little-endian byte writer that grows as needed. */
export class ByteWriter {
  private buffer = Buffer.alloc(1024);
  private length = 0;

  get size(): number {
    return this.length;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.byteLength) return;
    const grown = Buffer.alloc(Math.max(this.buffer.byteLength * 2, this.length + extra));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  u8(value: number): this {
    this.reserve(1);
    this.buffer.writeUInt8(value & 0xff, this.length);
    this.length += 1;
    return this;
  }

  u16(value: number): this {
    this.reserve(2);
    this.buffer.writeUInt16LE(value & 0xffff, this.length);
    this.length += 2;
    return this;
  }

  u32(value: number): this {
    this.reserve(4);
    this.buffer.writeUInt32LE(value >>> 0, this.length);
    this.length += 4;
    return this;
  }

  bytes(data: Uint8Array): this {
    this.reserve(data.byteLength);
    Buffer.from(data).copy(this.buffer, this.length);
    this.length += data.byteLength;
    return this;
  }

  /** Zeros up to the next multiple of `alignment`. */
  align(alignment: number): this {
    const padding = (alignment - (this.length % alignment)) % alignment;
    this.reserve(padding);
    this.length += padding;
    return this;
  }

  result(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }
}

/**
 * A stylesheet with one paragraph style, "Normal" (sti 0, no base style, next style itself, no
 * properties of its own): STSHI of 14 bytes, then the STD with its 8-byte fixed part, its
 * length-prefixed, NUL-terminated name and two empty UPXs (paragraph with istd 0, character).
 */
export function normalStylesheet(): Buffer {
  const style = new ByteWriter()
    .u16(0x0000) // sti 0 (Normal), no flags
    .u16(0x0001 | (0x0fff << 4)) // sgc 1 (paragraph), istdBase none
    .u16(0x0002 | (0 << 4)) // cupx 2, istdNext 0
    .u16(0); // bchUpe
  const name = Buffer.from('Normal', 'latin1');
  style.u8(name.byteLength).bytes(name).u8(0).align(2);
  style.u16(2).u16(0); // paragraph UPX: istd 0
  style.u16(0); // character UPX: no properties
  const body = style.result();
  return new ByteWriter()
    .u16(14) // cbStshi
    .u16(1) // cstd
    .u16(8) // cbSTDBaseInFile
    .u16(1) // fStdStylenamesWritten
    .u16(1) // stiMaxWhenSaved
    .u16(1) // istdMaxFixedWhenSaved
    .u16(0) // nVerBuiltInNamesWhenSaved
    .u16(0) // ftcStandardChpStsh
    .u16(body.byteLength)
    .bytes(body)
    .result();
}

/** A font table (STTBF of FFNs, led by its total size) naming one TrueType roman font. */
export function fontTable(fontName: string): Buffer {
  const name = Buffer.from(fontName, 'latin1');
  const ffn = new ByteWriter()
    .u8(0x02 | 0x04 | (1 << 4)) // variable pitch, TrueType, roman family
    .u16(400) // weight
    .u8(0) // ANSI character set
    .u8(0) // no alternative name
    .bytes(name)
    .u8(0)
    .result();
  const entry = new ByteWriter().u8(ffn.byteLength).bytes(ffn).result();
  return new ByteWriter()
    .u16(2 + entry.byteLength)
    .bytes(entry)
    .result();
}

/**
 * An 84-byte Word 6 DOP: widow control on, default tab stop of half an inch (720 twips), hot zone
 * of a quarter inch, the given paragraph and character counts; everything else zero.
 */
export function documentProperties(counts: { paragraphs: number; characters: number }): Buffer {
  const dop = Buffer.alloc(84);
  dop.writeUInt16LE(0x0002, 0); // fWidowControl
  dop.writeUInt16LE(720, 10); // dxaTab
  dop.writeUInt16LE(360, 14); // dxaHotZ
  dop.writeUInt32LE(counts.characters, 42); // cCh
  dop.writeUInt16LE(1, 46); // cPg
  dop.writeUInt32LE(counts.paragraphs, 48); // cParas
  return dop;
}

/** A one-section PLCF (Plcfsed): CPs 0 and `textLength`, one 12-byte SED without SEPX. */
export function sectionTable(textLength: number): Buffer {
  return new ByteWriter()
    .u32(0)
    .u32(textLength)
    .u16(0) // fn
    .u32(0xffffffff) // fcSepx: none, the default section properties
    .u16(0) // fnMpr
    .u32(0xffffffff) // fcMpr
    .result();
}

/** A bin table (PlcfbteChpx or PlcfbtePapx): the FKPs' first FCs, the last one's end, 2-byte PNs. */
export function binTable(pages: readonly { firstFc: number; page: number }[], endFc: number): Buffer {
  const writer = new ByteWriter();
  for (const { firstFc } of pages) writer.u32(firstFc);
  writer.u32(endFc);
  for (const { page } of pages) writer.u16(page);
  return writer.result();
}

/** A character FKP with one run from `startFc` to `endFc` of default (style) character properties. */
export function characterFkp(startFc: number, endFc: number): Buffer {
  const page = Buffer.alloc(FKP_SIZE);
  page.writeUInt32LE(startFc, 0);
  page.writeUInt32LE(endFc, 4);
  page.writeUInt8(0, 8); // no CHPX: the style's properties
  page.writeUInt8(1, FKP_SIZE - 1);
  return page;
}

/**
 * A paragraph FKP: one run per paragraph (the FC after each paragraph mark closes it), each BX
 * pointing at one shared PAPX (`cw` 1, istd 0: the Normal style) just before the run count.
 */
export function paragraphFkp(boundaries: readonly number[]): Buffer {
  const page = Buffer.alloc(FKP_SIZE);
  const runs = boundaries.length - 1;
  boundaries.forEach((fc, index) => {
    page.writeUInt32LE(fc, index * 4);
  });
  const papxAt = FKP_SIZE - 4;
  page.writeUInt8(1, papxAt); // cw: one word (the istd)
  page.writeUInt16LE(0, papxAt + 1); // istd 0
  const bxStart = (runs + 1) * 4;
  for (let index = 0; index < runs; index += 1) page.writeUInt8(papxAt / 2, bxStart + index * 7);
  page.writeUInt8(runs, FKP_SIZE - 1);
  return page;
}
