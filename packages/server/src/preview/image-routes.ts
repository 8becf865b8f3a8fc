import type { PreviewInput, PreviewService, RenderedImage } from '@collab-suite/preview-core';
import { type Request, type Response, Router } from 'express';
import { parseRequestPart } from '../http/validation.js';
import {
  previewQuerySchema,
  storedFilePathSchema,
  storedPreviewQuerySchema,
  storedThumbnailQuerySchema,
  thumbnailQuerySchema,
  uploadPathSchema,
} from './image-request.js';
import { answerUpload, storedAreaRequest, type UploadSettings } from './pdf-http.js';
import type { StoredRenderCache } from './render-cache.js';
import { addStoredRoute } from './stored-routes.js';

/** What the image routes need. */
export interface ImageRouteOptions extends UploadSettings {
  service: PreviewService;
  /** Kept renders of stored files, and the existence check asked before one is served. */
  renderCache: StoredRenderCache;
}

type Render = (input: PreviewInput, signal: AbortSignal) => Promise<RenderedImage>;

const STORED_THUMBNAIL = '/preview/image/:id/:version/:area/thumbnail/';
const STORED_PREVIEW = '/preview/image/:id/:version/:area/';

function storedThumbnail(request: Request) {
  const path = parseRequestPart(storedFilePathSchema, request.params, 'path');
  const query = parseRequestPart(storedThumbnailQuerySchema, request.query, 'query');
  const options = { shape: query.shape, quality: query.quality, outputFormat: query.output_format };
  return storedAreaRequest({ kind: 'thumbnail' }, path, query.service_type, options);
}

function storedPreview(request: Request) {
  const path = parseRequestPart(storedFilePathSchema, request.params, 'path');
  const query = parseRequestPart(storedPreviewQuerySchema, request.query, 'query');
  const options = { crop: query.crop, quality: query.quality, outputFormat: query.output_format };
  return storedAreaRequest({ kind: 'preview' }, path, query.service_type, options);
}

/** An upload's preview or thumbnail; refused with 503 before the body is read when no slot is free. */
async function answerImageUpload(
  request: Request,
  response: Response,
  options: ImageRouteOptions,
  render: Render,
) {
  options.service.assertCapacity();
  await answerUpload(request, response, options, async (input, signal) => ({
    image: await render(input, signal),
  }));
}

/**
 * The four image routes of the preview API: previews and thumbnails of stored files (GET, with ETag
 * and Cache-Control; HEAD with the same headers, rendering nothing) and of uploads (POST multipart,
 * field `file`).
 */
export function createImageRoutes(routeOptions: ImageRouteOptions): Router {
  const { service } = routeOptions;
  const router = Router();

  // HEAD reads the stored file's header, outside the render queue, for the Content-Type.
  addStoredRoute(
    router,
    {
      path: STORED_THUMBNAIL,
      parse: storedThumbnail,
      plan: async (input, options) => `image/${(await service.planImageThumbnail(input, options)).format}`,
      render: async (input, options) => ({ image: await service.imageThumbnail(input, options) }),
    },
    routeOptions.renderCache,
  );
  addStoredRoute(
    router,
    {
      path: STORED_PREVIEW,
      parse: storedPreview,
      plan: async (input, options) => `image/${(await service.planImagePreview(input, options)).format}`,
      render: async (input, options) => ({ image: await service.imagePreview(input, options) }),
    },
    routeOptions.renderCache,
  );

  router.post('/preview/image/:area/thumbnail/', async (request, response) => {
    const { area } = parseRequestPart(uploadPathSchema, request.params, 'path');
    const query = parseRequestPart(thumbnailQuerySchema, request.query, 'query');
    const options = { area, shape: query.shape, quality: query.quality, outputFormat: query.output_format };
    await answerImageUpload(request, response, routeOptions, (input, signal) =>
      service.imageThumbnail(input, { ...options, signal }),
    );
  });

  router.post('/preview/image/:area/', async (request, response) => {
    const { area } = parseRequestPart(uploadPathSchema, request.params, 'path');
    const query = parseRequestPart(previewQuerySchema, request.query, 'query');
    const options = { area, crop: query.crop, quality: query.quality, outputFormat: query.output_format };
    await answerImageUpload(request, response, routeOptions, (input, signal) =>
      service.imagePreview(input, { ...options, signal }),
    );
  });

  return router;
}
