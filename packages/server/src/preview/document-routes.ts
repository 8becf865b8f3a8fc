import type { DocumentPreviewService } from '@collab-suite/preview-core';
import { Router } from 'express';
import { parseRequestPart } from '../http/validation.js';
import {
  documentPreviewQuerySchema,
  documentThumbnailQuerySchema,
  requestedLocale,
  storedDocumentPathSchema,
  storedDocumentPreviewQuerySchema,
  storedDocumentThumbnailQuerySchema,
  storedThumbnailPathSchema,
  uploadThumbnailPathSchema,
} from './page-request.js';
import { answerStored, answerUpload, type UploadSettings } from './pdf-http.js';

/** What the document routes need. */
export interface DocumentRouteOptions {
  documentService: DocumentPreviewService;
  uploads: UploadSettings;
}

/**
 * The four document routes of the preview API: office documents (recognised by content) converted to
 * PDF, then the selected pages or a thumbnail of the first page; `locale` (or `lang_tag`) goes to the
 * converter. Converter down, busy or timed out: 503 with Retry-After.
 */
export function createDocumentRoutes({ documentService, uploads }: DocumentRouteOptions): Router {
  const router = Router();

  router.get('/preview/document/:id/:version/:area/thumbnail/', async (request, response) => {
    const path = parseRequestPart(storedThumbnailPathSchema, request.params, 'path');
    const query = parseRequestPart(storedDocumentThumbnailQuerySchema, request.query, 'query');
    const locale = requestedLocale(query);
    const options = { shape: query.shape, quality: query.quality, outputFormat: query.output_format, locale };
    const etagOptions = { ...options, width: path.area.width, height: path.area.height };
    const stored = {
      route: 'document-thumbnail',
      ...path,
      serviceType: query.service_type,
      options: etagOptions,
    };
    await answerStored(request, response, stored, async (input, signal) => ({
      image: await documentService.thumbnail(input, { ...options, area: path.area, signal }),
    }));
  });

  router.get('/preview/document/:id/:version/', async (request, response) => {
    const path = parseRequestPart(storedDocumentPathSchema, request.params, 'path');
    const query = parseRequestPart(storedDocumentPreviewQuerySchema, request.query, 'query');
    const options = {
      firstPage: query.first_page,
      lastPage: query.last_page,
      locale: requestedLocale(query),
    };
    const stored = { route: 'document-preview', ...path, serviceType: query.service_type, options };
    await answerStored(request, response, stored, async (input, signal) => ({
      pdf: (await documentService.preview(input, { ...options, signal })).data,
    }));
  });

  router.post('/preview/document/:area/thumbnail/', async (request, response) => {
    const { area } = parseRequestPart(uploadThumbnailPathSchema, request.params, 'path');
    const query = parseRequestPart(documentThumbnailQuerySchema, request.query, 'query');
    const options = {
      area,
      shape: query.shape,
      quality: query.quality,
      outputFormat: query.output_format,
      locale: requestedLocale(query),
    };
    await answerUpload(request, response, uploads, async (input, signal) => ({
      image: await documentService.thumbnail(input, { ...options, signal }),
    }));
  });

  router.post('/preview/document/', async (request, response) => {
    const query = parseRequestPart(documentPreviewQuerySchema, request.query, 'query');
    const options = {
      firstPage: query.first_page,
      lastPage: query.last_page,
      locale: requestedLocale(query),
    };
    await answerUpload(request, response, uploads, async (input, signal) => ({
      pdf: (await documentService.preview(input, { ...options, signal })).data,
    }));
  });

  return router;
}
