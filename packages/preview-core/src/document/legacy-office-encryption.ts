import type { OleContainer } from './ole-container.js';

/** Bytes of the Word FIB read: `FibBase` up to and including its flag word at offset 0x0A. */
const WORD_FIB_BYTES = 12;
/** `FibBase.fEncrypted` (MS-DOC 2.5.2): the document is encrypted or obfuscated with a password. */
const WORD_ENCRYPTED_FLAG = 0x0100;

/** BIFF records (MS-XLS 2.3): end of a substream, and the password record of its globals substream. */
const BIFF_EOF = 0x000a;
const BIFF_FILEPASS = 0x002f;
/** FilePass follows BOF within a few records; this many bytes of the Workbook stream always hold it. */
const WORKBOOK_SCAN_BYTES = 64 * 1024;

/** `CurrentUserAtom.headerToken` (MS-PPT 2.3.2) of a document encrypted with a password. */
const POWERPOINT_ENCRYPTED_TOKEN = 0xf3d1c4df;
const CURRENT_USER_BYTES = 16;

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** True when a Word 97-2003 `WordDocument` stream starts with a FIB whose `fEncrypted` bit is set. */
export function isWordStreamEncrypted(wordDocument: Uint8Array): boolean {
  if (wordDocument.byteLength < WORD_FIB_BYTES) return false;
  return (view(wordDocument).getUint16(0x0a, true) & WORD_ENCRYPTED_FLAG) !== 0;
}

/**
 * True when the first substream (the workbook globals) of a BIFF `Workbook` or `Book` stream holds a
 * FilePass record, i.e. the rest of the workbook is encrypted or obfuscated. Record headers stay in
 * clear text in encrypted workbooks, so the records can be walked up to the first EOF.
 */
export function hasWorkbookFilePass(workbook: Uint8Array): boolean {
  const data = view(workbook);
  let position = 0;
  while (position + 4 <= workbook.byteLength) {
    const type = data.getUint16(position, true);
    if (type === BIFF_FILEPASS) return true;
    if (type === BIFF_EOF) return false;
    position += 4 + data.getUint16(position + 2, true);
  }
  return false;
}

/** True when a PowerPoint `Current User` stream's CurrentUserAtom carries the encrypted header token. */
export function isCurrentUserEncrypted(currentUser: Uint8Array): boolean {
  if (currentUser.byteLength < CURRENT_USER_BYTES) return false;
  return view(currentUser).getUint32(12, true) === POWERPOINT_ENCRYPTED_TOKEN;
}

/**
 * Which legacy Office document (Word, Excel or PowerPoint 97-2003) in `container` is protected by a
 * password, or undefined when none is. Reads only the few bytes that say so: the Word FIB's
 * `fEncrypted` bit, an Excel FilePass record, PowerPoint's `EncryptedSummary` stream or encrypted
 * `Current User` token.
 * @throws {PreviewError} `UNREADABLE_INPUT` when a stream's sector chain is damaged.
 */
export function legacyPasswordProtection(
  container: OleContainer,
): 'Word' | 'Excel' | 'PowerPoint' | undefined {
  const names = container.rootNames;
  const word = container.readStream('WordDocument', WORD_FIB_BYTES);
  if (word && isWordStreamEncrypted(word)) return 'Word';
  const workbook =
    container.readStream('Workbook', WORKBOOK_SCAN_BYTES) ??
    container.readStream('Book', WORKBOOK_SCAN_BYTES);
  if (workbook && hasWorkbookFilePass(workbook)) return 'Excel';
  if (names.has('PowerPoint Document')) {
    if (names.has('EncryptedSummary')) return 'PowerPoint';
    const currentUser = container.readStream('Current User', CURRENT_USER_BYTES);
    if (currentUser && isCurrentUserEncrypted(currentUser)) return 'PowerPoint';
  }
  return undefined;
}
