import { type DocumentPreviewService, normaliseLocale } from '@collab-suite/preview-core';
import { type Request, Router } from 'express';
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
import { answerUpload, storedAreaRequest, type UploadSettings } from './pdf-http.js';
import type { StoredRenderCache } from './render-cache.js';
import { addStoredPageRoutes } from './stored-routes.js';

/** What the document routes need. */
export interface DocumentRouteOptions {
  documentService: DocumentPreviewService;
  uploads: UploadSettings;
  /** Kept renders of stored files, and the existence check asked before one is served. */
  renderCache: StoredRenderCache;
}

const STORED_THUMBNAIL = '/preview/document/:id/:version/:area/thumbnail/';
const STORED_PREVIEW = '/preview/document/:id/:version/';

/** The stored-thumbnail parser; the locale is resolved (default filled in) so it keys one render. */
const storedThumbnail = (defaultLocale: string) => (request: Request) => {
  const path = parseRequestPart(storedThumbnailPathSchema, request.params, 'path');
  const query = parseRequestPart(storedDocumentThumbnailQuerySchema, request.query, 'query');
  const locale = normaliseLocale(requestedLocale(query), defaultLocale);
  const options = { shape: query.shape, quality: query.quality, outputFormat: query.output_format, locale };
  return storedAreaRequest({ route: 'document-thumbnail' }, path, query.service_type, options);
};

/** The stored-preview parser; the locale is resolved (default filled in) so it keys one render. */
const storedPreview = (defaultLocale: string) => (request: Request) => {
  const path = parseRequestPart(storedDocumentPathSchema, request.params, 'path');
  const query = parseRequestPart(storedDocumentPreviewQuerySchema, request.query, 'query');
  const options = {
    firstPage: query.first_page,
    lastPage: query.last_page,
    locale: normaliseLocale(requestedLocale(query), defaultLocale),
  };
  return {
    stored: {
      ...path,
      serviceType: query.service_type,
      options: { route: 'document-preview', ...options },
    },
    options,
  };
};

/**
 * The four document routes of the preview API: office documents (recognised by content) converted to
 * PDF, then the selected pages or a thumbnail of the first page; `locale` (or `lang_tag`) goes to the
 * converter. Converter down, busy or timed out: 503 with Retry-After. HEAD on a stored document reads
 * and recognises it (so a password-protected one is a 400) but converts nothing.
 */
export function createDocumentRoutes({
  documentService,
  uploads,
  renderCache,
}: DocumentRouteOptions): Router {
  const router = Router();

  addStoredPageRoutes(
    router,
    {
      service: documentService,
      thumbnailPath: STORED_THUMBNAIL,
      parseThumbnail: storedThumbnail(documentService.limits.defaultLocale),
      previewPath: STORED_PREVIEW,
      parsePreview: storedPreview(documentService.limits.defaultLocale),
    },
    renderCache,
  );

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
