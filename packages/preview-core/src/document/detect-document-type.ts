import { PreviewError } from '../errors.js';
import type { DocumentType } from './document-type.js';
import { legacyPasswordProtection } from './legacy-office-encryption.js';
import { looksLikeOle, openOleContainer } from './ole-container.js';
import {
  listZipEntries,
  looksLikeZip,
  readZipEntry,
  verifyZipEntries,
  type ZipEntry,
  type ZipLimits,
} from './zip-container.js';

const ODF_MEDIA_TYPE = 'application/vnd.oasis.opendocument.';

/**
 * OpenDocument `mimetype`s (after the common prefix) by family: the document, its template, and for
 * text the Writer/Web and master documents (and their templates). The same import filter reads the
 * variants of a family, so each is previewed as the family's document type.
 */
const ODF_TYPES: ReadonlyMap<string, DocumentType> = new Map([
  ['text', 'odt'],
  ['text-template', 'odt'],
  ['text-web', 'odt'],
  ['text-master', 'odt'],
  ['text-master-template', 'odt'],
  ['spreadsheet', 'ods'],
  ['spreadsheet-template', 'ods'],
  ['presentation', 'odp'],
  ['presentation-template', 'odp'],
]);

/** The family type of an OpenDocument `mimetype`, or undefined (drawings, formulas, charts, ...). */
function odfType(declared: string): DocumentType | undefined {
  return declared.startsWith(ODF_MEDIA_TYPE)
    ? ODF_TYPES.get(declared.slice(ODF_MEDIA_TYPE.length))
    : undefined;
}

const OOXML_MAIN_PARTS: ReadonlyArray<readonly [string, DocumentType]> = [
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml', 'docx'],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml', 'xlsx'],
  ['application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml', 'pptx'],
];

const SUPPORTED = 'doc, docx, odt, xls, xlsx, ods, ppt, pptx or odp';
/** Largest `mimetype`, `[Content_Types].xml` or manifest entry read to recognise a container. */
const MAX_MARKER_BYTES = 8 * 1024 * 1024;

function unsupported(what: string): PreviewError {
  return new PreviewError('UNREADABLE_INPUT', `expected a ${SUPPORTED} document but received ${what}`, {
    details: { received: what },
  });
}

async function refuseEncryptedOdf(bytes: Uint8Array, manifest: ZipEntry | undefined): Promise<void> {
  if (!manifest) return;
  const xml = (await readZipEntry(bytes, manifest, MAX_MARKER_BYTES)).toString('utf8');
  if (xml.includes('encryption-data')) {
    throw new PreviewError(
      'PASSWORD_PROTECTED',
      'the OpenDocument is encrypted with a password, so it cannot be previewed',
    );
  }
}

async function detectZip(bytes: Uint8Array, limits: ZipLimits): Promise<DocumentType> {
  const entries = await listZipEntries(bytes, limits);
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  const mimetype = byName.get('mimetype');
  const contentTypes = byName.get('[Content_Types].xml');
  let type: DocumentType | undefined;
  if (mimetype) {
    const declared = (await readZipEntry(bytes, mimetype, MAX_MARKER_BYTES)).toString('latin1').trim();
    type = odfType(declared);
    if (!type) throw unsupported(`an OpenDocument of type "${declared.slice(0, 100)}"`);
    await refuseEncryptedOdf(bytes, byName.get('META-INF/manifest.xml'));
  } else if (contentTypes) {
    const xml = (await readZipEntry(bytes, contentTypes, MAX_MARKER_BYTES)).toString('utf8');
    type = OOXML_MAIN_PARTS.find(([contentType]) => xml.includes(`"${contentType}"`))?.[1];
    if (!type)
      throw unsupported('an Office Open XML package without a document, workbook or presentation part');
  } else {
    throw unsupported('a zip archive that is neither Office Open XML nor OpenDocument');
  }
  await verifyZipEntries(bytes, entries);
  return type;
}

async function detectOle(bytes: Uint8Array): Promise<DocumentType> {
  const container = await openOleContainer(bytes);
  const names = container.rootNames;
  if (names.has('EncryptionInfo') && names.has('EncryptedPackage')) {
    throw new PreviewError(
      'PASSWORD_PROTECTED',
      'the document is encrypted with a password (an encrypted Office Open XML package), so it cannot be previewed',
    );
  }
  const protectedApplication = legacyPasswordProtection(container);
  if (protectedApplication) {
    throw new PreviewError(
      'PASSWORD_PROTECTED',
      `the ${protectedApplication} 97-2003 document is protected by a password, so it cannot be previewed`,
      { details: { application: protectedApplication } },
    );
  }
  if (names.has('WordDocument')) return 'doc';
  if (names.has('PowerPoint Document')) return 'ppt';
  if (names.has('Workbook') || names.has('Book')) return 'xls';
  // A sound container (its chains bounded, without loops, not encrypted) whose application is unclear,
  // e.g. a damaged file whose main stream lost its name: LibreOffice's own detection judges it, as for
  // Word 6/95 files. The type only names the first import filter tried; when that filter refuses, the
  // converter detects the format and exports with the filter of what it opened.
  return 'doc';
}

/**
 * Recognises an office document by its content, never by its name: zip containers by their
 * `mimetype` (OpenDocument) or `[Content_Types].xml` (Office Open XML) entry, OLE2 compound files by
 * their top-level stream names (compared without regard to case). A sound OLE2 file with none of the
 * Word, Excel or PowerPoint streams is reported as `doc` and left to the converter's own format
 * detection (LibreOffice opens it if it can; otherwise `CONVERSION_FAILED`). A zip container is refused past `limits` and every entry is inflated
 * once within its declared size, so a zip bomb named `.docx` never reaches the converter.
 * @throws {PreviewError} `UNREADABLE_INPUT` for empty, damaged or other content; `ARCHIVE_LIMIT_EXCEEDED`
 * for a zip container past `limits`; `PASSWORD_PROTECTED` for an encrypted Office Open XML or OpenDocument file and a doc, xls or ppt
 * protected by a password.
 */
export async function detectDocumentType(bytes: Uint8Array, limits: ZipLimits): Promise<DocumentType> {
  if (bytes.byteLength === 0) throw unsupported('0 bytes');
  if (looksLikeZip(bytes)) return detectZip(bytes, limits);
  if (looksLikeOle(bytes)) return detectOle(bytes);
  const start = new TextDecoder('latin1').decode(bytes.subarray(0, 5));
  if (start === '%PDF-') throw unsupported('a PDF (use the PDF preview instead)');
  throw unsupported(`content starting with bytes ${Buffer.from(bytes.subarray(0, 8)).toString('hex')}`);
}
