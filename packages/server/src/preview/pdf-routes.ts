import type { PdfPreviewService, PreviewService } from '@collab-suite/preview-core';
import { type Request, Router } from 'express';
import { parseRequestPart } from '../http/validation.js';
import {
  pdfPreviewQuerySchema,
  pdfThumbnailQuerySchema,
  storedDocumentPathSchema,
  storedPdfPreviewQuerySchema,
  storedPdfThumbnailQuerySchema,
  storedThumbnailPathSchema,
  uploadThumbnailPathSchema,
} from './page-request.js';
import { answerUpload, storedAreaRequest, type UploadSettings } from './pdf-http.js';
import type { StoredRenderCache } from './render-cache.js';
import { addStoredPageRoutes } from './stored-routes.js';

/** What the PDF routes need. */
export interface PdfRouteOptions {
  pdfService: PdfPreviewService;
  /** Its render queue refuses uploads with 503 before their bodies are read when it is full. */
  previewService: PreviewService;
  /** Uploads read into buffers of their own (never pooled): they are handed to the PDF workers. */
  uploads: UploadSettings;
  /** Kept renders of stored files, and the existence check asked before one is served. */
  renderCache: StoredRenderCache;
}

const STORED_THUMBNAIL = '/preview/pdf/:id/:version/:area/thumbnail/';
const STORED_PREVIEW = '/preview/pdf/:id/:version/';

function storedThumbnail(request: Request) {
  const path = parseRequestPart(storedThumbnailPathSchema, request.params, 'path');
  const query = parseRequestPart(storedPdfThumbnailQuerySchema, request.query, 'query');
  const options = { shape: query.shape, quality: query.quality, outputFormat: query.output_format };
  return storedAreaRequest({ route: 'pdf-thumbnail' }, path, query.service_type, options);
}

function storedPreview(request: Request) {
  const path = parseRequestPart(storedDocumentPathSchema, request.params, 'path');
  const query = parseRequestPart(storedPdfPreviewQuerySchema, request.query, 'query');
  const range = { firstPage: query.first_page, lastPage: query.last_page };
  return {
    stored: { ...path, serviceType: query.service_type, options: { route: 'pdf-preview', ...range } },
    options: range,
  };
}

/**
 * The four PDF routes of the preview API: the selected pages of a PDF (the original bytes for the
 * whole document) and a thumbnail of its first page, for stored files (GET with ETag, and HEAD, which
 * reads the stored file but renders nothing) and uploads (POST).
 */
export function createPdfRoutes({
  pdfService,
  previewService,
  uploads,
  renderCache,
}: PdfRouteOptions): Router {
  const router = Router();

  addStoredPageRoutes(
    router,
    {
      service: pdfService,
      thumbnailPath: STORED_THUMBNAIL,
      parseThumbnail: storedThumbnail,
      previewPath: STORED_PREVIEW,
      parsePreview: storedPreview,
    },
    renderCache,
  );

  router.post('/preview/pdf/:area/thumbnail/', async (request, response) => {
    const { area } = parseRequestPart(uploadThumbnailPathSchema, request.params, 'path');
    const query = parseRequestPart(pdfThumbnailQuerySchema, request.query, 'query');
    const options = { area, shape: query.shape, quality: query.quality, outputFormat: query.output_format };
    pdfService.assertCapacity();
    previewService.assertCapacity();
    await answerUpload(request, response, uploads, async (input, signal) => ({
      image: await pdfService.thumbnail(input, { ...options, signal, transferInput: true }),
    }));
  });

  router.post('/preview/pdf/', async (request, response) => {
    const query = parseRequestPart(pdfPreviewQuerySchema, request.query, 'query');
    const range = { firstPage: query.first_page, lastPage: query.last_page };
    pdfService.assertCapacity();
    await answerUpload(request, response, uploads, async (input, signal) => ({
      pdf: (await pdfService.preview(input, { ...range, signal, transferInput: true })).data,
    }));
  });

  return router;
}
