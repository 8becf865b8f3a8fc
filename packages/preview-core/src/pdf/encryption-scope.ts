import type { Mupdf } from './mupdf-module.js';

type MupdfObject = ReturnType<InstanceType<Mupdf['PDFDocument']>['getTrailer']>;

/** The crypt filter a `/StmF` or `/StrF` entry names; absent means `Identity` (ISO 32000-2, 7.6.5). */
function filterName(encrypt: MupdfObject, key: 'StmF' | 'StrF'): string {
  const value = encrypt.get(key);
  return value.isName() ? value.asName() : 'Identity';
}

/**
 * True when a PDF's `/Encrypt` dictionary protects embedded files only: a crypt-filter handler
 * (`/V` 4 or 5) whose streams and strings use the `Identity` filter, as "encrypt attachments only"
 * (`/AuthEvent /EFOpen`) saves it. Its pages are plain, so they can be shown without the password.
 */
export function encryptsOnlyEmbeddedFiles(document: InstanceType<Mupdf['PDFDocument']>): boolean {
  const encrypt = document.getTrailer().get('Encrypt').resolve();
  if (!encrypt.isDictionary()) return false;
  const version = encrypt.get('V');
  if (!version.isNumber() || (version.asNumber() !== 4 && version.asNumber() !== 5)) return false;
  return filterName(encrypt, 'StmF') === 'Identity' && filterName(encrypt, 'StrF') === 'Identity';
}
