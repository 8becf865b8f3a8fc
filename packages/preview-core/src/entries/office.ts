// `@collab-suite/preview-core/office`: Office-document previews through LibreOffice or a remote converter; needs mupdf and pdf-lib.
export {
  type ConversionFailureMemory,
  type ConversionFailureOptions,
  type ConversionFailureStats,
  conversionFailureOptionsSchema,
  createConversionFailureMemory,
} from '../document/conversion-failures.js';
export {
  type ConvertedPdf,
  type ConvertedPdfCache,
  type ConvertedPdfCacheOptions,
  type ConvertedPdfCacheStats,
  convertedPdfCacheOptionsSchema,
  convertedPdfKey,
  createConvertedPdfCache,
} from '../document/converted-pdf-cache.js';
export { detectDocumentType } from '../document/detect-document-type.js';
export type {
  ConversionPageRange,
  ConversionRequest,
  ConverterInstanceStatus,
  ConverterStatus,
  DocumentConverter,
} from '../document/document-converter.js';
export {
  createDocumentPreviewService,
  type DocumentLimits,
  type DocumentLimitsInput,
  type DocumentPreview,
  type DocumentPreviewService,
  type DocumentPreviewStatus,
  type DocumentRequestOptions,
  documentLimitsSchema,
} from '../document/document-preview-service.js';
export {
  DOCUMENT_TYPE_INFO,
  DOCUMENT_TYPES,
  type DocumentFamily,
  type DocumentType,
  type DocumentTypeInfo,
} from '../document/document-type.js';
export {
  createLibreOfficeConverter,
  type LibreOfficeConverter,
} from '../document/libreoffice/libreoffice-converter.js';
export {
  type LibreOfficeOptions,
  type LibreOfficeOptionsInput,
  libreOfficeOptionsSchema,
} from '../document/libreoffice/libreoffice-options.js';
export { normaliseLocale } from '../document/locale.js';
export {
  createRemoteConverter,
  type RemoteConverterOptions,
  type RemoteConverterOptionsInput,
  remoteConverterOptionsSchema,
} from '../document/remote/remote-converter.js';
export type { ZipLimits } from '../document/zip-container.js';
export { isPreviewError, PreviewError, type PreviewErrorCode, type PreviewErrorDetails } from '../errors.js';
