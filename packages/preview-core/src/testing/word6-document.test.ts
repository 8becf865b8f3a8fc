import { describe, expect, it } from 'vitest';
import { detectDocumentType } from '../document/detect-document-type.js';
import { openOleContainer } from '../document/ole-container.js';
import {
  makeWord6Document,
  makeWord6Stream,
  pagedParagraphs,
  WORD6_FIB,
  WORD6_IDENTIFIER,
  WORD6_TEXT_START,
} from './word6-document.js';

const LIMITS = { maxEntries: 10_000, maxUncompressedBytes: 512 * 1024 * 1024, maxCompressionRatio: 200 };
const PARAGRAPHS = ['First paragraph', 'Second paragraph, café', 'Third'];

function fib(stream: Buffer, field: keyof typeof WORD6_FIB, width: 2 | 4 = 4): number {
  return width === 2 ? stream.readUInt16LE(WORD6_FIB[field]) : stream.readUInt32LE(WORD6_FIB[field]);
}

/** The (fc, lcb) pair of a FIB table. */
function table(stream: Buffer, field: keyof typeof WORD6_FIB): Buffer {
  const fc = fib(stream, field);
  return stream.subarray(fc, fc + stream.readUInt32LE(WORD6_FIB[field] + 4));
}

describe('makeWord6Document writes a Word 6/95 FIB', () => {
  it('stamps wIdent 0xA5DC and nFib 101 for Word 6, 104 for Word 95', () => {
    const word6 = makeWord6Stream({ paragraphs: PARAGRAPHS, version: 'word6' });
    const word95 = makeWord6Stream({ paragraphs: PARAGRAPHS, version: 'word95' });
    expect(fib(word6, 'wIdent', 2)).toBe(WORD6_IDENTIFIER);
    expect(fib(word6, 'nFib', 2)).toBe(101);
    expect(fib(word95, 'wIdent', 2)).toBe(WORD6_IDENTIFIER);
    expect(fib(word95, 'nFib', 2)).toBe(104);
  });

  it('stores the text once between fcMin and fcMac in the 8-bit code page, paragraphs closed by 13', () => {
    const stream = makeWord6Stream({ paragraphs: PARAGRAPHS, version: 'word95' });
    const text = `${PARAGRAPHS.join('\r')}\r`;
    expect(fib(stream, 'fcMin')).toBe(WORD6_TEXT_START);
    expect(fib(stream, 'fcMac')).toBe(WORD6_TEXT_START + text.length);
    expect(fib(stream, 'ccpText')).toBe(text.length);
    expect(stream.subarray(WORD6_TEXT_START, fib(stream, 'fcMac')).toString('latin1')).toBe(text);
    expect(fib(stream, 'cbMac')).toBe(stream.byteLength);
    expect(fib(stream, 'flags', 2)).toBe(0); // not complex, not encrypted, not a template
  });

  it('replaces what the code page cannot hold with ? and keeps tabs and page breaks', () => {
    const stream = makeWord6Stream({ paragraphs: ['a\tb\fc €日\u0001'], version: 'word6' });
    expect(stream.subarray(WORD6_TEXT_START, fib(stream, 'fcMac')).toString('latin1')).toBe('a\tb\fc ???\r');
  });

  it('points the FIB at a stylesheet, section table, font table and DOP inside the stream', () => {
    const stream = makeWord6Stream({ paragraphs: PARAGRAPHS, version: 'word6' });
    expect(table(stream, 'fcStshf').includes(Buffer.from('\u0006Normal\u0000', 'latin1'))).toBe(true);
    expect(table(stream, 'fcStshfOrig')).toEqual(table(stream, 'fcStshf'));
    const sections = table(stream, 'fcPlcfsed');
    expect([sections.readUInt32LE(0), sections.readUInt32LE(4)]).toEqual([0, fib(stream, 'ccpText')]);
    expect(sections.byteLength).toBe(8 + 12);
    expect(table(stream, 'fcSttbfffn').includes(Buffer.from('Times New Roman\u0000', 'latin1'))).toBe(true);
    expect(table(stream, 'fcDop').byteLength).toBe(84);
  });

  it('covers the text with one character FKP and paragraph FKPs of 40 runs, one run per paragraph', () => {
    const paragraphs = pagedParagraphs(5, 40);
    const stream = makeWord6Stream({ paragraphs, version: 'word95' });
    const fcMac = fib(stream, 'fcMac');
    expect(fib(stream, 'cpnBteChp', 2)).toBe(1);
    expect(fib(stream, 'cpnBtePap', 2)).toBe(5);
    const characters = table(stream, 'fcPlcfbteChpx');
    expect([characters.readUInt32LE(0), characters.readUInt32LE(4)]).toEqual([WORD6_TEXT_START, fcMac]);
    expect(characters.readUInt16LE(8)).toBe(fib(stream, 'pnChpFirst', 2));
    const bins = table(stream, 'fcPlcfbtePapx');
    expect(bins.byteLength).toBe(6 * 4 + 5 * 2);
    expect(bins.readUInt32LE(5 * 4)).toBe(fcMac);
    const pages = Array.from({ length: 5 }, (_, index) => bins.readUInt16LE(24 + index * 2));
    expect(pages[0]).toBe(fib(stream, 'pnPapFirst', 2));
    let runs = 0;
    for (const [index, page] of pages.entries()) {
      const fkp = stream.subarray(page * 512, page * 512 + 512);
      const count = fkp.readUInt8(511);
      expect(fkp.readUInt32LE(0)).toBe(bins.readUInt32LE(index * 4));
      expect(stream.readUInt8(fkp.readUInt32LE(count * 4) - 1)).toBe(0x0d);
      runs += count;
    }
    expect(runs).toBe(paragraphs.length);
  });
});

describe('makeWord6Document wraps the stream in a compound file', () => {
  it('reads back with the OLE reader as a lone WordDocument stream, past the mini-stream cutoff', async () => {
    const spec = { paragraphs: pagedParagraphs(2, 100), version: 'word6' } as const;
    const container = await openOleContainer(makeWord6Document(spec));
    expect([...container.rootNames]).toEqual(['WordDocument']);
    const stream = makeWord6Stream(spec);
    expect(stream.byteLength).toBeGreaterThan(4096);
    expect(container.readStream('WordDocument', stream.byteLength + 1)).toEqual(new Uint8Array(stream));
  });

  it('keeps even a one-word document in regular sectors, as its stream is padded to 4096 bytes', async () => {
    const container = await openOleContainer(makeWord6Document({ paragraphs: ['x'], version: 'word95' }));
    expect(container.readStream('WordDocument', 10_000)?.byteLength).toBe(4096);
  });

  it('is recognised as a doc by detectDocumentType', async () => {
    for (const version of ['word6', 'word95'] as const) {
      const bytes = makeWord6Document({ paragraphs: PARAGRAPHS, version });
      expect(await detectDocumentType(bytes, LIMITS)).toBe('doc');
    }
  });
});

describe('pagedParagraphs', () => {
  it('opens every page after the first with a page break', () => {
    expect(pagedParagraphs(2, 2)).toEqual([
      'Page 1 paragraph 1',
      'Page 1 paragraph 2',
      '\fPage 2 paragraph 1',
      'Page 2 paragraph 2',
    ]);
  });
});
