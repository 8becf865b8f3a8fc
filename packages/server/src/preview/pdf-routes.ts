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
import { answerStored, answerStoredHead, answerUpload, type UploadSettings } from './pdf-http.js';

/** What the PDF routes need. */
export interface PdfRouteOptions {
  pdfService: PdfPreviewService;
  /** Its render queue refuses uploads with 503 before their bodies are read when it is full. */
  previewService: PreviewService;
  uploads: UploadSettings;
}

const STORED_THUMBNAIL = '/preview/pdf/:id/:version/:area/thumbnail/';
const STORED_PREVIEW = '/preview/pdf/:id/:version/';

function storedThumbnail(request: Request) {
  const path = parseRequestPart(storedThumbnailPathSchema, request.params, 'path');
  const query = parseRequestPart(storedPdfThumbnailQuerySchema, request.query, 'query');
  const options = { shape: query.shape, quality: query.quality, outputFormat: query.output_format };
  const etagOptions = {
    route: 'pdf-thumbnail',
    ...options,
    width: path.area.width,
    height: path.area.height,
  };
  const stored = { ...path, serviceType: query.service_type, options: etagOptions };
  return { stored, options: { ...options, area: path.area } };
}

function storedPreview(request: Request) {
  const path = parseRequestPart(storedDocumentPathSchema, request.params, 'path');
  const query = parseRequestPart(storedPdfPreviewQuerySchema, request.query, 'query');
  const range = { firstPage: query.first_page, lastPage: query.last_page };
  return {
    stored: { ...path, serviceType: query.service_type, options: { route: 'pdf-preview', ...range } },
    range,
  };
}

/**
 * The four PDF routes of the preview API: the selected pages of a PDF (the original bytes for the
 * whole document) and a thumbnail of its first page, for stored files (GET with ETag, and HEAD, which
 * reads the stored file but renders nothing) and uploads (POST).
 */
export function createPdfRoutes({ pdfService, previewService, uploads }: PdfRouteOptions): Router {
  const router = Router();

  // HEAD first: Express would otherwise answer HEAD with the GET handler, rendering the whole page.
  router.head(STORED_THUMBNAIL, async (request, response) => {
    const { stored, options } = storedThumbnail(request);
    await answerStoredHead(request, response, stored, async (input, signal) => {
      const { format } = await pdfService.planThumbnail(input, { ...options, signal });
      return `image/${format}`;
    });
  });

  router.get(STORED_THUMBNAIL, async (request, response) => {
    const { stored, options } = storedThumbnail(request);
    await answerStored(request, response, stored, async (input, signal) => ({
      image: await pdfService.thumbnail(input, { ...options, signal }),
    }));
  });

  router.head(STORED_PREVIEW, async (request, response) => {
    const { stored, range } = storedPreview(request);
    await answerStoredHead(request, response, stored, async (input, signal) => {
      await pdfService.planPreview(input, { ...range, signal });
      return 'application/pdf';
    });
  });

  router.get(STORED_PREVIEW, async (request, response) => {
    const { stored, range } = storedPreview(request);
    await answerStored(request, response, stored, async (input, signal) => ({
      pdf: (await pdfService.preview(input, { ...range, signal })).data,
    }));
  });

  router.post('/preview/pdf/:area/thumbnail/', async (request, response) => {
    const { area } = parseRequestPart(uploadThumbnailPathSchema, request.params, 'path');
    const query = parseRequestPart(pdfThumbnailQuerySchema, request.query, 'query');
    const options = { area, shape: query.shape, quality: query.quality, outputFormat: query.output_format };
    previewService.assertCapacity();
    await answerUpload(request, response, uploads, async (input, signal) => ({
      image: await pdfService.thumbnail(input, { ...options, signal }),
    }));
  });

  router.post('/preview/pdf/', async (request, response) => {
    const query = parseRequestPart(pdfPreviewQuerySchema, request.query, 'query');
    const range = { firstPage: query.first_page, lastPage: query.last_page };
    previewService.assertCapacity();
    await answerUpload(request, response, uploads, async (input, signal) => ({
      pdf: (await pdfService.preview(input, { ...range, signal })).data,
    }));
  });

  return router;
}
