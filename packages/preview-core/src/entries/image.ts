// `@collab-suite/preview-core/image`: Image previews and thumbnails (sharp only), stored-file sources, URL signing and the disk cache.
export {
  createDiskCache,
  type DiskCache,
  type DiskCacheEntry,
  type DiskCacheMetadata,
  type DiskCacheOptions,
  type DiskCacheStats,
  diskCacheOptionsSchema,
} from '../cache/disk-cache.js';
export { isPreviewError, PreviewError, type PreviewErrorCode, type PreviewErrorDetails } from '../errors.js';
export { type Area, assertAreaWithinLimit, parseArea } from '../image/area.js';
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
} from '../image/geometry.js';
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
} from '../image/image-options.js';
export { type ImageInfo, inspectImage } from '../image/inspect-image.js';
export {
  chooseOutputFormat,
  defaultPreviewFormat,
  INPUT_FORMATS,
  type InputFormat,
} from '../image/output-format.js';
export type { RawPixels, RenderedImage } from '../image/render-image.js';
export {
  type ImageRenderPlan,
  planImageBytes,
  renderImageBytes,
  renderRawPixels,
  resolveArea,
} from '../image/render-request.js';
export {
  type PreviewLimits,
  type PreviewLimitsInput,
  previewLimitsSchema,
} from '../limits/preview-limits.js';
export { createRenderQueue, type RenderQueue, type RenderQueueStats } from '../limits/render-queue.js';
export {
  createPreviewService,
  type PlannedImage,
  type PreviewInput,
  type PreviewService,
  type PreviewServiceOptions,
  type PreviewServiceStats,
  previewServiceOptionsSchema,
} from '../preview-service.js';
export {
  EXPIRES_PARAMETER,
  MIN_SIGNING_KEY_BYTES,
  type PreviewPathRefusal,
  type PreviewPathVerdict,
  SIGNATURE_PARAMETER,
  type SignPreviewPathOptions,
  signPreviewPath,
  verifyPreviewPath,
} from '../signing/preview-url-signature.js';
export {
  createDiskStoredFileSource,
  type DiskStoredFileSourceOptions,
  storedFilePath,
} from '../storage/disk-stored-file-source.js';
export {
  createHttpStoredFileSource,
  downloadUrl,
  type HttpStoredFileSourceOptions,
} from '../storage/http-stored-file-source.js';
export {
  createInMemoryStoredFileSource,
  type InMemoryStoredFileSource,
} from '../storage/in-memory-stored-file-source.js';
export {
  createStoredFileExistence,
  type StoredFileExistence,
  type StoredFileExistenceOptions,
} from '../storage/stored-file-existence.js';
export {
  describeStoredFileRef,
  normaliseStoredFileRef,
  SERVICE_TYPES,
  type ServiceType,
  type StoredFileRef,
  type StoredFileSource,
  storedFileNotFound,
} from '../storage/stored-file-source.js';
