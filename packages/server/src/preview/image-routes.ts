import type { PreviewInput, PreviewService, RenderedImage } from '@collab-suite/preview-core';
import { type Request, type Response, Router } from 'express';
import type { UploadBufferPool } from '../http/upload-buffer-pool.js';
import { parseRequestPart } from '../http/validation.js';
import {
  previewQuerySchema,
  storedFilePathSchema,
  storedPreviewQuerySchema,
  storedThumbnailQuerySchema,
  thumbnailQuerySchema,
  uploadPathSchema,
} from './image-request.js';
import { answerStored, answerStoredHead, answerUpload, storedAreaRequest } from './pdf-http.js';

/** What the image routes need. */
export interface ImageRouteOptions {
  service: PreviewService;
  /** Largest uploaded file, in bytes (413 past it). */
  maxUploadBytes: number;
  /** Buffers for upload bodies, given back once the render is done. */
  uploadBuffers: UploadBufferPool;
}

const CONTENT_TYPES: Record<RenderedImage['format'], string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
};

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

  // HEAD first: Express would otherwise answer HEAD with the GET handler, rendering the whole image.
  // HEAD reads the stored file's header, outside the render queue, for the Content-Type.
  router.head(STORED_THUMBNAIL, async (request, response) => {
    const { stored, options } = storedThumbnail(request);
    await answerStoredHead(request, response, stored, async (input, signal) => {
      const { format } = await service.planImageThumbnail(input, { ...options, signal });
      return CONTENT_TYPES[format];
    });
  });

  router.get(STORED_THUMBNAIL, async (request, response) => {
    const { stored, options } = storedThumbnail(request);
    await answerStored(request, response, stored, async (input, signal) => ({
      image: await service.imageThumbnail(input, { ...options, signal }),
    }));
  });

  router.head(STORED_PREVIEW, async (request, response) => {
    const { stored, options } = storedPreview(request);
    await answerStoredHead(request, response, stored, async (input, signal) => {
      const { format } = await service.planImagePreview(input, { ...options, signal });
      return CONTENT_TYPES[format];
    });
  });

  router.get(STORED_PREVIEW, async (request, response) => {
    const { stored, options } = storedPreview(request);
    await answerStored(request, response, stored, async (input, signal) => ({
      image: await service.imagePreview(input, { ...options, signal }),
    }));
  });

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
