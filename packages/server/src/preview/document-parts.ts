import {
  createConvertedPdfCache,
  createDocumentPreviewService,
  createPdfPreviewService,
  type DiskCache,
  type DocumentConverter,
  type PreviewService,
} from '@collab-suite/preview-core';
import { Router } from 'express';
import type { ServerConfig } from '../config.js';
import type { HealthCheck } from '../health/health-check.js';
import { createUploadBufferPool, type UploadBufferPool } from '../http/upload-buffer-pool.js';
import type { OpenApiFragment } from '../openapi/openapi-document.js';
import { createConvertRoutes } from './convert-routes.js';
import { documentOpenApi } from './document-openapi.js';
import { createDocumentRoutes } from './document-routes.js';
import { createConverterHealthCheck, documentConverterFromConfig } from './document-setup.js';
import { createPdfRoutes } from './pdf-routes.js';
import type { StoredRenderCache } from './render-cache.js';

/** The PDF and document part of the preview feature: routes, OpenAPI, health and shutdown. */
export interface DocumentParts {
  router: Router;
  openapi: OpenApiFragment;
  health: HealthCheck[];
  close(): Promise<void>;
}

/**
 * Builds the PDF and document previews on top of the image preview service (input reading, render
 * queue, thumbnail pipeline), with the converter of the configuration unless `converter` is given.
 * Upload bodies are read into `uploadBuffers`, shared with the image routes.
 * @throws ConfigError when the converter configuration is incomplete.
 */
export function createDocumentParts(
  config: ServerConfig,
  previewService: PreviewService,
  options: {
    converter?: DocumentConverter | undefined;
    uploadBuffers: UploadBufferPool;
    /** Renders of stored files and converted PDFs kept on disk. */
    diskCache?: DiskCache | undefined;
    /** The render cache of stored-file routes, with its existence check. */
    renderCache: StoredRenderCache;
  },
): DocumentParts {
  const converter = options.converter ?? documentConverterFromConfig(config);
  const uploads = { maxUploadBytes: config.preview.maxUploadBytes, uploadBuffers: options.uploadBuffers };
  // PDF uploads are read into buffers of their own, which move to a PDF worker instead of being copied.
  const pdfUploads = { ...uploads, uploadBuffers: createUploadBufferPool({ maxPooledBytes: 0 }) };
  const { preview, document } = config;
  const maxInputBytes = Math.max(preview.maxUploadBytes, config.storage.maxBytes);
  const pdfService = createPdfPreviewService({
    previewService,
    limits: {
      maxInputBytes,
      maxPagesPerSelection: preview.maxPdfPages,
      maxRenderPixels: preview.maxRenderPixels,
    },
    workers: {
      timeoutSeconds: preview.renderTimeoutSeconds,
      ...(preview.pdfWorkers === undefined ? {} : { workers: preview.pdfWorkers }),
      maxQueuedTasks: preview.maxQueuedRenders,
    },
  });
  const cache = createConvertedPdfCache(
    {
      maxBytes: document.cacheMaxBytes,
      maxEntryBytes: Math.min(document.cacheMaxBytes, 16 * 1024 * 1024),
    },
    options.diskCache,
  );
  const documentService = createDocumentPreviewService({
    previewService,
    pdfService,
    converter,
    cache,
    limits: { maxInputBytes, defaultLocale: document.defaultLocale },
    failures: { rememberSeconds: document.failureMemorySeconds },
  });
  const { renderCache } = options;
  const router = Router();
  router.use(createPdfRoutes({ pdfService, previewService, uploads: pdfUploads, renderCache }));
  // Converted PDFs are kept by id and version: a render from one reads nothing from the storage.
  const documentRenders = { ...renderCache, confirmBeforeRender: true };
  router.use(createDocumentRoutes({ documentService, uploads, renderCache: documentRenders }));
  if (document.convertEndpoint) {
    router.use(createConvertRoutes({ converter, limits: documentService.limits, uploads }));
  }
  return {
    router,
    openapi: documentOpenApi(document.convertEndpoint, document.defaultLocale),
    health: [
      {
        name: 'pdf-renderer',
        required: false,
        check: async () => ({ live: true, ready: true, details: { ...pdfService.stats() } }),
      },
      createConverterHealthCheck(converter, () => ({
        cache: cache.stats(),
        failures: documentService.status().failures,
      })),
    ],
    close: async () => {
      await Promise.allSettled([converter.close(), pdfService.close()]);
    },
  };
}
