/** Office document types the previews accept, recognised by content rather than by name. */
export const DOCUMENT_TYPES = ['doc', 'docx', 'odt', 'xls', 'xlsx', 'ods', 'ppt', 'pptx', 'odp'] as const;
/** One of the {@link DOCUMENT_TYPES}. */
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Which LibreOffice application handles a document type. */
export type DocumentFamily = 'text' | 'spreadsheet' | 'presentation';

/** What a converter needs to know about a document type. */
export interface DocumentTypeInfo {
  readonly family: DocumentFamily;
  /** Media type of the format. */
  readonly mediaType: string;
  /** LibreOffice import filter, named so LibreOffice does not guess (and cannot be fooled). */
  readonly importFilter: string;
  /** LibreOffice PDF export filter of the family. */
  readonly pdfExportFilter: string;
}

const PDF_EXPORT: Readonly<Record<DocumentFamily, string>> = {
  text: 'writer_pdf_Export',
  spreadsheet: 'calc_pdf_Export',
  presentation: 'impress_pdf_Export',
};

function info(family: DocumentFamily, mediaType: string, importFilter: string): DocumentTypeInfo {
  return { family, mediaType, importFilter, pdfExportFilter: PDF_EXPORT[family] };
}

/** Facts about every {@link DocumentType}. */
export const DOCUMENT_TYPE_INFO: Readonly<Record<DocumentType, DocumentTypeInfo>> = {
  doc: info('text', 'application/msword', 'MS Word 97'),
  docx: info(
    'text',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'MS Word 2007 XML',
  ),
  odt: info('text', 'application/vnd.oasis.opendocument.text', 'writer8'),
  xls: info('spreadsheet', 'application/vnd.ms-excel', 'MS Excel 97'),
  xlsx: info(
    'spreadsheet',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'Calc MS Excel 2007 XML',
  ),
  ods: info('spreadsheet', 'application/vnd.oasis.opendocument.spreadsheet', 'calc8'),
  ppt: info('presentation', 'application/vnd.ms-powerpoint', 'MS PowerPoint 97'),
  pptx: info(
    'presentation',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    'Impress MS PowerPoint 2007 XML',
  ),
  odp: info('presentation', 'application/vnd.oasis.opendocument.presentation', 'impress8'),
};
