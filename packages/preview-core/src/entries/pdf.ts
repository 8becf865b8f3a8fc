// `@collab-suite/preview-core/pdf`: PDF previews and thumbnails; needs the optional peers mupdf and pdf-lib.
export { isPreviewError, PreviewError, type PreviewErrorCode, type PreviewErrorDetails } from '../errors.js';
export { type PageRangeRequest, type PageSelection, resolvePageSelection } from '../pdf/page-selection.js';
export { type PdfLimits, type PdfLimitsInput, pdfLimitsSchema } from '../pdf/pdf-options.js';
export {
  createPdfPreviewService,
  type PdfInputOptions,
  type PdfPreviewRequest,
  type PdfPreviewService,
} from '../pdf/pdf-preview-service.js';
export { createPdfPreviewer, type PdfPreview, type PdfPreviewer } from '../pdf/pdf-previewer.js';
export {
  createPdfWorkerPool,
  type PdfTaskOptions,
  type PdfWorkerPool,
  type PdfWorkerPoolOptions,
  type PdfWorkerPoolStats,
  pdfWorkerPoolOptionsSchema,
} from '../pdf/pdf-worker-pool.js';
export { type PageRender, planPageRender } from '../pdf/render-scale.js';
