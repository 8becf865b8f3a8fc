import {
  type Area,
  normaliseStoredFileRef,
  type PlannedImage,
  type PreviewInput,
  type PreviewService,
  type RenderedImage,
  type StoredFileRef,
} from '@collab-suite/preview-core';
import { type Request, type Response, Router } from 'express';
import { readUploadedFile } from '../http/multipart.js';
import { sendUploadAnswer } from '../http/send-upload-answer.js';
import type { UploadBufferPool } from '../http/upload-buffer-pool.js';
import { parseRequestPart } from '../http/validation.js';
import { matchesIfNoneMatch, renderEtag, STORED_PREVIEW_CACHE_CONTROL } from './http-caching.js';
import {
  previewQuerySchema,
  storedFilePathSchema,
  storedPreviewQuerySchema,
  storedThumbnailQuerySchema,
  thumbnailQuerySchema,
  uploadPathSchema,
} from './image-request.js';

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

/** An AbortSignal that fires when the client goes away before the answer is sent. */
function clientGone(response: Response): AbortSignal {
  const controller = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}

function sendImage(response: Response, image: RenderedImage, headers: Record<string, string>): void {
  response.status(200).set(headers).type(CONTENT_TYPES[image.format]).send(image.data);
}

type Render = (input: PreviewInput, signal: AbortSignal) => Promise<RenderedImage>;

/** Everything that decides the bytes of a stored-file render, and so its ETag. */
interface StoredRender {
  kind: 'preview' | 'thumbnail';
  path: { id: string; version: number };
  serviceType: 'files' | 'chats';
  options: { area: Area } & Record<string, string | boolean | Area | undefined>;
}

function etagOf({ kind, serviceType, options }: StoredRender, ref: StoredFileRef): string {
  const { area, ...rest } = options;
  const flat: Record<string, string | number | boolean | undefined> = {};
  for (const [key, value] of Object.entries(rest)) if (typeof value !== 'object') flat[key] = value;
  return renderEtag({
    ...flat,
    kind,
    id: ref.id,
    version: ref.version,
    serviceType,
    width: area.width,
    height: area.height,
  });
}

/** The stored file and caching headers of a request; undefined once a 304 has been sent. */
function cachedOrHeaders(request: Request, response: Response, stored: StoredRender) {
  const ref = normaliseStoredFileRef({ ...stored.path, serviceType: stored.serviceType });
  const headers = { ETag: etagOf(stored, ref), 'Cache-Control': STORED_PREVIEW_CACHE_CONTROL };
  if (matchesIfNoneMatch(request, headers.ETag)) {
    response.status(304).set(headers).end();
    return undefined;
  }
  return { input: { storedFile: ref }, headers };
}

async function answerStored(request: Request, response: Response, stored: StoredRender, render: Render) {
  const prepared = cachedOrHeaders(request, response, stored);
  if (!prepared) return;
  sendImage(response, await render(prepared.input, clientGone(response)), prepared.headers);
}

/**
 * HEAD of a stored image: the GET's ETag and Cache-Control (or 304) and its Content-Type, found by
 * reading the stored file's header, outside the render queue and without rendering. No Content-Length:
 * the size of a render is not known before it runs.
 */
async function answerStoredHead(
  request: Request,
  response: Response,
  stored: StoredRender,
  plan: (input: PreviewInput, signal: AbortSignal) => Promise<PlannedImage>,
) {
  const prepared = cachedOrHeaders(request, response, stored);
  if (!prepared) return;
  const planned = await plan(prepared.input, clientGone(response));
  response.status(200).set(prepared.headers).type(CONTENT_TYPES[planned.format]).end();
}

const STORED_THUMBNAIL = '/preview/image/:id/:version/:area/thumbnail/';
const STORED_PREVIEW = '/preview/image/:id/:version/:area/';

function storedThumbnail(request: Request) {
  const path = parseRequestPart(storedFilePathSchema, request.params, 'path');
  const query = parseRequestPart(storedThumbnailQuerySchema, request.query, 'query');
  const options = {
    area: path.area,
    shape: query.shape,
    quality: query.quality,
    outputFormat: query.output_format,
  };
  return { kind: 'thumbnail', path, serviceType: query.service_type, options } as const;
}

function storedPreview(request: Request) {
  const path = parseRequestPart(storedFilePathSchema, request.params, 'path');
  const query = parseRequestPart(storedPreviewQuerySchema, request.query, 'query');
  const options = {
    area: path.area,
    crop: query.crop,
    quality: query.quality,
    outputFormat: query.output_format,
  };
  return { kind: 'preview', path, serviceType: query.service_type, options } as const;
}

async function answerUpload(
  request: Request,
  response: Response,
  options: ImageRouteOptions,
  render: Render,
) {
  options.service.assertCapacity();
  const file = await readUploadedFile(request, {
    fieldName: 'file',
    maxBytes: options.maxUploadBytes,
    pool: options.uploadBuffers,
  });
  try {
    const image = await render(file.data, clientGone(response));
    sendUploadAnswer(response, image.data, CONTENT_TYPES[image.format]);
  } finally {
    file.release();
  }
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
  router.head(STORED_THUMBNAIL, async (request, response) => {
    const stored = storedThumbnail(request);
    await answerStoredHead(request, response, stored, (input, signal) =>
      service.planImageThumbnail(input, { ...stored.options, signal }),
    );
  });

  router.get(STORED_THUMBNAIL, async (request, response) => {
    const stored = storedThumbnail(request);
    await answerStored(request, response, stored, (input, signal) =>
      service.imageThumbnail(input, { ...stored.options, signal }),
    );
  });

  router.head(STORED_PREVIEW, async (request, response) => {
    const stored = storedPreview(request);
    await answerStoredHead(request, response, stored, (input, signal) =>
      service.planImagePreview(input, { ...stored.options, signal }),
    );
  });

  router.get(STORED_PREVIEW, async (request, response) => {
    const stored = storedPreview(request);
    await answerStored(request, response, stored, (input, signal) =>
      service.imagePreview(input, { ...stored.options, signal }),
    );
  });

  router.post('/preview/image/:area/thumbnail/', async (request, response) => {
    const { area } = parseRequestPart(uploadPathSchema, request.params, 'path');
    const query = parseRequestPart(thumbnailQuerySchema, request.query, 'query');
    const options = { area, shape: query.shape, quality: query.quality, outputFormat: query.output_format };
    await answerUpload(request, response, routeOptions, (input, signal) =>
      service.imageThumbnail(input, { ...options, signal }),
    );
  });

  router.post('/preview/image/:area/', async (request, response) => {
    const { area } = parseRequestPart(uploadPathSchema, request.params, 'path');
    const query = parseRequestPart(previewQuerySchema, request.query, 'query');
    const options = { area, crop: query.crop, quality: query.quality, outputFormat: query.output_format };
    await answerUpload(request, response, routeOptions, (input, signal) =>
      service.imagePreview(input, { ...options, signal }),
    );
  });

  return router;
}
