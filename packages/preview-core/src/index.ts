export {
  createDiskCache,
  type DiskCache,
  type DiskCacheEntry,
  type DiskCacheMetadata,
  type DiskCacheOptions,
  type DiskCacheStats,
  diskCacheOptionsSchema,
} from './cache/disk-cache.js';
export {
  type ConversionFailureMemory,
  type ConversionFailureOptions,
  type ConversionFailureStats,
  conversionFailureOptionsSchema,
  createConversionFailureMemory,
} from './document/conversion-failures.js';
export {
  type ConvertedPdf,
  type ConvertedPdfCache,
  type ConvertedPdfCacheOptions,
  type ConvertedPdfCacheStats,
  convertedPdfCacheOptionsSchema,
  convertedPdfKey,
  createConvertedPdfCache,
} from './document/converted-pdf-cache.js';
export { detectDocumentType } from './document/detect-document-type.js';
export type {
  ConversionPageRange,
  ConversionRequest,
  ConverterInstanceStatus,
  ConverterStatus,
  DocumentConverter,
} from './document/document-converter.js';
export {
  createDocumentPreviewService,
  type DocumentLimits,
  type DocumentLimitsInput,
  type DocumentPreview,
  type DocumentPreviewService,
  type DocumentPreviewStatus,
  type DocumentRequestOptions,
  documentLimitsSchema,
} from './document/document-preview-service.js';
export {
  DOCUMENT_TYPE_INFO,
  DOCUMENT_TYPES,
  type DocumentFamily,
  type DocumentType,
  type DocumentTypeInfo,
} from './document/document-type.js';
export {
  createLibreOfficeConverter,
  type LibreOfficeConverter,
} from './document/libreoffice/libreoffice-converter.js';
export {
  type LibreOfficeOptions,
  type LibreOfficeOptionsInput,
  libreOfficeOptionsSchema,
} from './document/libreoffice/libreoffice-options.js';
export { LOCALE_PATTERN, normaliseLocale } from './document/locale.js';
export {
  createRemoteConverter,
  type RemoteConverterOptions,
  type RemoteConverterOptionsInput,
  remoteConverterOptionsSchema,
} from './document/remote/remote-converter.js';
export type { ZipLimits } from './document/zip-container.js';
export { isPreviewError, PreviewError, type PreviewErrorCode, type PreviewErrorDetails } from './errors.js';
export { type Area, assertAreaWithinLimit, parseArea } from './image/area.js';
export {
  type Borders,
  type CropPosition,
  centreBorders,
  coverTarget,
  cropRectangle,
  fitInside,
  MINIMUM_RESOLUTION,
  planCrop,
  planFit,
  type Rectangle,
  type RenderPlan,
  type Size,
  targetSize,
} from './image/geometry.js';
export {
  IMAGE_QUALITIES,
  type ImagePreviewRequest,
  type ImageQuality,
  type ImageThumbnailRequest,
  imagePreviewRequestSchema,
  imageThumbnailRequestSchema,
  JPEG_QUALITY,
  OUTPUT_FORMATS,
  type OutputFormat,
  type RenderOptions,
  THUMBNAIL_SHAPES,
  type ThumbnailShape,
} from './image/image-options.js';
export { type ImageInfo, inspectImage } from './image/inspect-image.js';
export {
  chooseOutputFormat,
  defaultPreviewFormat,
  INPUT_FORMATS,
  type InputFormat,
} from './image/output-format.js';
export type { RawPixels, RenderedImage } from './image/render-image.js';
export {
  type ImageRenderPlan,
  planImageBytes,
  renderImageBytes,
  renderRawPixels,
  resolveArea,
} from './image/render-request.js';
export { type PreviewLimits, type PreviewLimitsInput, previewLimitsSchema } from './limits/preview-limits.js';
export { createRenderQueue, type RenderQueue, type RenderQueueStats } from './limits/render-queue.js';
export { type PageRangeRequest, type PageSelection, resolvePageSelection } from './pdf/page-selection.js';
export { type PdfLimits, type PdfLimitsInput, pdfLimitsSchema } from './pdf/pdf-options.js';
export {
  createPdfPreviewService,
  type PdfInputOptions,
  type PdfPreviewRequest,
  type PdfPreviewService,
} from './pdf/pdf-preview-service.js';
export { createPdfPreviewer, type PdfPreview, type PdfPreviewer } from './pdf/pdf-previewer.js';
export {
  createPdfWorkerPool,
  type PdfTaskOptions,
  type PdfWorkerPool,
  type PdfWorkerPoolOptions,
  type PdfWorkerPoolStats,
  pdfWorkerPoolOptionsSchema,
} from './pdf/pdf-worker-pool.js';
export { type PageRender, planPageRender } from './pdf/render-scale.js';
export {
  createPreviewService,
  type PlannedImage,
  type PreviewInput,
  type PreviewService,
  type PreviewServiceOptions,
  type PreviewServiceStats,
  previewServiceOptionsSchema,
} from './preview-service.js';
export {
  EXPIRES_PARAMETER,
  MIN_SIGNING_KEY_BYTES,
  type PreviewPathRefusal,
  type PreviewPathVerdict,
  SIGNATURE_PARAMETER,
  type SignPreviewPathOptions,
  signPreviewPath,
  verifyPreviewPath,
} from './signing/preview-url-signature.js';
export {
  createDiskStoredFileSource,
  type DiskStoredFileSourceOptions,
  storedFilePath,
} from './storage/disk-stored-file-source.js';
export {
  createHttpStoredFileSource,
  downloadUrl,
  type HttpStoredFileSourceOptions,
} from './storage/http-stored-file-source.js';
export {
  createInMemoryStoredFileSource,
  type InMemoryStoredFileSource,
} from './storage/in-memory-stored-file-source.js';
export {
  createStoredFileExistence,
  type StoredFileExistence,
  type StoredFileExistenceOptions,
} from './storage/stored-file-existence.js';
export {
  describeStoredFileRef,
  normaliseStoredFileRef,
  SERVICE_TYPES,
  type ServiceType,
  type StoredFileRef,
  type StoredFileSource,
  storedFileNotFound,
} from './storage/stored-file-source.js';
