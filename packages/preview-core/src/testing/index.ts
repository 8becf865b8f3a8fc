export { makeAttachmentEncryptedPdf } from './attachment-encrypted-pdf.js';
export {
  type CommentedDocumentSpec,
  makeCommentedDocx,
  makeCommentedOdt,
} from './commented-documents.js';
export {
  type CompoundStreamSpec,
  type DeflatedData,
  DOCX_CONTENT_TYPES,
  docxZipBomb,
  makeCompoundFile,
  makeZip,
  repeatedDeflate,
  type ZipEntrySpec,
} from './container-samples.js';
export { type CompoundDamage, damageCompoundFile } from './damaged-compound-file.js';
export { heicSample } from './heic-sample.js';
export {
  animatedGif,
  costlySvg,
  declaredSizePng,
  gradientJpeg,
  type ImageFacts,
  imageFacts,
  isNear,
  noiseJpeg,
  pixelAt,
  QUADRANT_COLOURS,
  quadrantImage,
  type Rgba,
  rotatedExifJpeg,
  solidImage,
} from './image-fixtures.js';
export {
  createInMemoryConverter,
  type InMemoryConverter,
  type InMemoryConverterOptions,
} from './in-memory-converter.js';
export { type LargeCompoundFileSpec, makeLargeCompoundFile } from './large-compound-file.js';
export {
  encryptPdf,
  makeCostlyPdf,
  makeMisparentedPdf,
  makeOvercountedPdf,
  makePdf,
  pdfPageTexts,
} from './pdf-samples.js';
export { previewFailure } from './preview-failure.js';
export { ODF_VARIANT_DOCUMENTS, SAMPLE_DOCUMENTS, sampleDocument } from './sample-documents.js';
export {
  type StorageBehaviour,
  type StorageServiceDouble,
  startStorageServiceDouble,
} from './storage-service-double.js';
export {
  makeWord6Document,
  makeWord6Stream,
  pagedParagraphs,
  WORD6_FIB,
  WORD6_FIB_VERSIONS,
  WORD6_IDENTIFIER,
  WORD6_TEXT_START,
  type Word6DocumentSpec,
} from './word6-document.js';
