import { describe, expect, it } from 'vitest';
import { makeCompoundFile } from '../testing/container-samples.js';
import {
  hasWorkbookFilePass,
  isCurrentUserEncrypted,
  isWordStreamEncrypted,
  legacyPasswordProtection,
} from './legacy-office-encryption.js';
import { openOleContainer } from './ole-container.js';

// Byte layouts follow the Microsoft Open Specifications: MS-DOC 2.5.2 (FibBase), MS-XLS 2.4.21/2.4.117
// (BOF, FilePass), MS-PPT 2.3.2 (CurrentUserAtom). Real encrypted doc and xls files made by
// LibreOffice are tested in test/document/detect-document-type.test.ts.

/** A FibBase: wIdent 0xA5EC, nFib 0x00C1, then the flag word at 0x0A with the given bits. */
function fibBase(flags: number): Uint8Array {
  const fib = Buffer.alloc(32);
  fib.writeUInt16LE(0xa5ec, 0);
  fib.writeUInt16LE(0x00c1, 2);
  fib.writeUInt16LE(flags, 0x0a);
  return fib;
}

function biffRecord(type: number, body: Uint8Array = new Uint8Array(0)): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16LE(type, 0);
  header.writeUInt16LE(body.byteLength, 2);
  return Buffer.concat([header, body]);
}

const BOF = biffRecord(0x0809, Buffer.from([0x00, 0x06, 0x05, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
const EOF = biffRecord(0x000a);
/** FilePass with RC4 CryptoAPI encryption (wEncryptionType 1, then 52 bytes of header we never read). */
const FILEPASS = biffRecord(0x002f, Buffer.concat([Buffer.from([0x01, 0x00]), Buffer.alloc(52)]));
const WRITE_ACCESS = biffRecord(0x005c, Buffer.alloc(112, 0x20));

function currentUserAtom(headerToken: number): Uint8Array {
  const atom = Buffer.alloc(28);
  atom.writeUInt16LE(0x0000, 0);
  atom.writeUInt16LE(0x0ff6, 2);
  atom.writeUInt32LE(20, 4);
  atom.writeUInt32LE(0x14, 8);
  atom.writeUInt32LE(headerToken, 12);
  return atom;
}

describe('legacy Office password detection from the specification layouts', () => {
  it('reads fEncrypted from the Word FIB flag word and ignores its neighbours', () => {
    expect(isWordStreamEncrypted(fibBase(0x0100))).toBe(true);
    expect(isWordStreamEncrypted(fibBase(0x8000 | 0x0100))).toBe(true);
    expect(isWordStreamEncrypted(fibBase(0x12f0))).toBe(false);
    expect(isWordStreamEncrypted(fibBase(0x0100).subarray(0, 11))).toBe(false);
  });

  it('finds a FilePass record in the workbook globals but not after their EOF', () => {
    expect(hasWorkbookFilePass(Buffer.concat([BOF, FILEPASS, WRITE_ACCESS, EOF]))).toBe(true);
    expect(hasWorkbookFilePass(Buffer.concat([BOF, WRITE_ACCESS, EOF]))).toBe(false);
    expect(hasWorkbookFilePass(Buffer.concat([BOF, EOF, BOF, FILEPASS, EOF]))).toBe(false);
    expect(hasWorkbookFilePass(BOF.subarray(0, 3))).toBe(false);
  });

  it('tells the encrypted CurrentUserAtom header token from the plain one', () => {
    expect(isCurrentUserEncrypted(currentUserAtom(0xf3d1c4df))).toBe(true);
    expect(isCurrentUserEncrypted(currentUserAtom(0xe391c05f))).toBe(false);
  });

  it('names the application of a protected compound file, reading the streams through the mini stream', async () => {
    const detect = async (streams: Parameters<typeof makeCompoundFile>[0]) =>
      legacyPasswordProtection(await openOleContainer(makeCompoundFile(streams)));
    expect(await detect([{ name: 'WordDocument', data: fibBase(0x0100) }, '1Table'])).toBe('Word');
    expect(await detect([{ name: 'WordDocument', data: fibBase(0x0000) }, '1Table'])).toBeUndefined();
    expect(await detect([{ name: 'Workbook', data: Buffer.concat([BOF, FILEPASS, EOF]) }])).toBe('Excel');
    expect(await detect([{ name: 'Book', data: Buffer.concat([BOF, FILEPASS, EOF]) }])).toBe('Excel');
    expect(
      await detect([{ name: 'Workbook', data: Buffer.concat([BOF, WRITE_ACCESS, EOF]) }]),
    ).toBeUndefined();
    const powerPoint = (token: number) => [
      { name: 'Current User', data: currentUserAtom(token) },
      'PowerPoint Document',
    ];
    expect(await detect(powerPoint(0xf3d1c4df))).toBe('PowerPoint');
    expect(await detect(powerPoint(0xe391c05f))).toBeUndefined();
    expect(await detect(['Current User', 'PowerPoint Document', 'EncryptedSummary'])).toBe('PowerPoint');
  });

  it('reads a stream back byte for byte across several mini sectors', async () => {
    const data = Uint8Array.from({ length: 1000 }, (_, index) => (index * 7) % 251);
    const container = await openOleContainer(makeCompoundFile(['1Table', { name: 'WordDocument', data }]));
    expect([...container.rootNames]).toEqual(expect.arrayContaining(['1Table', 'WordDocument']));
    expect(container.readStream('WordDocument', 5000)).toEqual(data);
    expect(container.readStream('WordDocument', 10)).toEqual(data.subarray(0, 10));
    expect(container.readStream('1Table', 10)).toEqual(new Uint8Array(0));
    expect(container.readStream('Workbook', 10)).toBeUndefined();
  });

  it('refuses a stream whose mini sector chain loops with UNREADABLE_INPUT', async () => {
    const file = Buffer.from(makeCompoundFile([{ name: 'WordDocument', data: new Uint8Array(200) }]));
    file.writeUInt32LE(0, 512 * 3); // mini FAT: sector 0 points back at itself
    const container = await openOleContainer(file);
    expect(() => container.readStream('WordDocument', 200)).toThrow(
      expect.objectContaining({ code: 'UNREADABLE_INPUT' }),
    );
  });
});
