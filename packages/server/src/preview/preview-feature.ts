import { mkdir } from 'node:fs/promises';
import {
  createDiskCache,
  createDiskStoredFileSource,
  createHttpStoredFileSource,
  createPreviewService,
  createStoredFileExistence,
  type DocumentConverter,
  type PreviewService,
  type StoredFileSource,
} from '@collab-suite/preview-core';
import { Router } from 'express';
import type { ServerConfig } from '../config.js';
import type { FeatureContext, ServerFeature } from '../feature.js';
import { createErrorHandler, detailBody } from '../http/error-handler.js';
import { malformedPathAsValidationError } from '../http/malformed-path.js';
import { createRateLimit } from '../http/rate-limit.js';
import { createUploadBufferPool } from '../http/upload-buffer-pool.js';
import { createDocumentParts } from './document-parts.js';
import { createImageRoutes } from './image-routes.js';
import { previewOpenApi, withAreaBound } from './preview-openapi.js';
import { createStorageHealthCheck } from './storage-health.js';
import { storedPreviewAccess } from './stored-access.js';

/** Ports and services tests may replace. */
export interface PreviewFeatureOverrides {
  /** @default the HTTP storage at STORAGE_URL, else the folder STORAGE_DIR */
  storedFiles?: StoredFileSource;
  /** @default a preview service with the limits of the configuration */
  service?: PreviewService;
  /** @default the converter of DOCUMENT_CONVERTER (a warm LibreOffice pool) */
  converter?: DocumentConverter;
}

async function defaultStoredFiles(config: ServerConfig): Promise<StoredFileSource> {
  const { url, directory, timeoutMs, maxBytes } = config.storage;
  if (url) return createHttpStoredFileSource({ baseUrl: url, timeoutMs, maxBytes });
  await mkdir(directory, { recursive: true });
  return createDiskStoredFileSource({ root: directory, maxBytes });
}

/** Builds the preview service from the configuration's limits. */
export function previewServiceFromConfig(
  config: ServerConfig,
  storedFiles: StoredFileSource,
): PreviewService {
  const { preview, storage } = config;
  return createPreviewService({
    storedFiles,
    limits: {
      maxInputBytes: Math.max(preview.maxUploadBytes, storage.maxBytes),
      maxInputPixels: preview.maxInputPixels,
      maxOutputSide: preview.maxOutputSide,
      maxConcurrentRenders: preview.maxConcurrentRenders,
      maxQueuedRenders: preview.maxQueuedRenders,
      renderTimeoutSeconds: preview.renderTimeoutSeconds,
    },
  });
}

/** The preview API: image previews and thumbnails of uploads and stored files. */
export async function createPreviewFeature(
  context: FeatureContext,
  overrides: PreviewFeatureOverrides = {},
): Promise<ServerFeature> {
  const { config } = context;
  const storedFiles = overrides.storedFiles ?? (await defaultStoredFiles(config));
  const service = overrides.service ?? previewServiceFromConfig(config, storedFiles);
  const router = Router();
  const uploadLimit =
    config.preview.uploadsPerMinute > 0
      ? createRateLimit({
          perMinute: config.preview.uploadsPerMinute,
          name: 'preview-uploads',
          redisUrl: config.chat.redisUrl,
          redisTimeoutMs: config.chat.redisTimeoutMs,
          logger: context.logger,
          keyOf: (request) => request.ip ?? request.socket.remoteAddress ?? 'unknown',
          refusal: (perMinute, seconds) =>
            `expected at most ${perMinute} uploads per minute from one client but this one sent that many; retry in ${seconds} s`,
        })
      : undefined;
  // Uploads are the costly, anonymous requests: each one is counted against its client's address.
  if (uploadLimit) {
    const limitUploads = uploadLimit.middleware;
    router.use((request, response, next) =>
      request.method === 'POST' ? limitUploads(request, response, next) : next(),
    );
  }
  // Reads of stored files are guarded as PREVIEW_STORED_AUTH says; uploads are not stored files.
  router.use('/preview', storedPreviewAccess(config.preview.storedAccess, context.authenticator));
  const uploadBuffers = createUploadBufferPool();
  const { cache } = config.preview;
  // Renders of stored files and converted PDFs, kept across restarts (uploads' renders are not kept).
  const diskCache = cache.maxBytes > 0 ? createDiskCache(cache) : undefined;
  const existence = createStoredFileExistence(storedFiles, { ttlMs: config.preview.storedExistenceTtlMs });
  const renderCache = { cache: diskCache, existence };
  router.use(
    createImageRoutes({
      service,
      maxUploadBytes: config.preview.maxUploadBytes,
      uploadBuffers,
      renderCache,
    }),
  );
  const documents = createDocumentParts(config, service, {
    converter: overrides.converter,
    uploadBuffers,
    diskCache,
    renderCache,
  });
  router.use(documents.router);
  router.use(malformedPathAsValidationError);
  router.use(createErrorHandler(detailBody));
  return {
    name: 'preview',
    basePath: '/',
    paths: config.document.convertEndpoint ? ['/preview', '/cool'] : ['/preview'],
    router,
    openapi: {
      tags: [...(previewOpenApi.tags ?? []), ...(documents.openapi.tags ?? [])],
      paths: withAreaBound(
        { ...previewOpenApi.paths, ...documents.openapi.paths },
        config.preview.maxOutputSide,
      ),
      schemas: { ...previewOpenApi.schemas, ...documents.openapi.schemas },
    },
    health: [
      {
        name: 'image-renderer',
        required: false,
        check: async () => ({ live: true, ready: true, details: { ...service.stats() } }),
      },
      createStorageHealthCheck(config.storage),
      {
        name: 'preview-cache',
        required: false,
        check: async () => ({
          live: true,
          ready: true,
          details: { directory: cache.directory, ...(diskCache?.stats() ?? { maxBytes: 0 }) },
        }),
      },
      ...documents.health,
    ],
    async close() {
      uploadLimit?.close();
      await documents.close();
    },
  };
}
