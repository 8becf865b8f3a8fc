import type { OutputFormat, PdfPreview, PreviewInput, RenderedImage } from '@collab-suite/preview-core';
import type { Request, Router } from 'express';
import { answerStored, answerStoredHead, type StoredRequest } from './pdf-http.js';

type WithSignal<Options> = Options & { signal: AbortSignal };

/** What the stored-page routes call; the PDF and the document services both are one. */
export interface PageService<ThumbnailOptions, PreviewOptions> {
  thumbnail: (input: PreviewInput, request: WithSignal<ThumbnailOptions>) => Promise<RenderedImage>;
  planThumbnail: (
    input: PreviewInput,
    request: WithSignal<ThumbnailOptions>,
  ) => Promise<{ format: OutputFormat }>;
  preview: (input: PreviewInput, request: WithSignal<PreviewOptions>) => Promise<PdfPreview>;
  planPreview: (input: PreviewInput, request: WithSignal<PreviewOptions>) => Promise<unknown>;
}

/** A stored-file request as its route parses it: the ETag parts, and the options for the service. */
export interface ParsedStoredRequest<Options> {
  stored: StoredRequest;
  options: Options;
}

/** The two stored-file routes of a page service: a thumbnail of the first page, and a PDF of pages. */
export interface StoredPageRoutes<ThumbnailOptions, PreviewOptions> {
  service: PageService<ThumbnailOptions, PreviewOptions>;
  thumbnailPath: string;
  parseThumbnail(request: Request): ParsedStoredRequest<ThumbnailOptions>;
  previewPath: string;
  parsePreview(request: Request): ParsedStoredRequest<PreviewOptions>;
}

/**
 * Adds HEAD and GET of both stored-file routes to `router`. Each HEAD comes before its GET: Express
 * would otherwise answer HEAD with the GET handler, rendering or converting; HEAD only plans.
 */
export function addStoredPageRoutes<ThumbnailOptions, PreviewOptions>(
  router: Router,
  routes: StoredPageRoutes<ThumbnailOptions, PreviewOptions>,
): void {
  const { service } = routes;

  router.head(routes.thumbnailPath, async (request, response) => {
    const { stored, options } = routes.parseThumbnail(request);
    await answerStoredHead(request, response, stored, async (input, signal) => {
      const { format } = await service.planThumbnail(input, { ...options, signal });
      return `image/${format}`;
    });
  });

  router.get(routes.thumbnailPath, async (request, response) => {
    const { stored, options } = routes.parseThumbnail(request);
    await answerStored(request, response, stored, async (input, signal) => ({
      image: await service.thumbnail(input, { ...options, signal }),
    }));
  });

  router.head(routes.previewPath, async (request, response) => {
    const { stored, options } = routes.parsePreview(request);
    await answerStoredHead(request, response, stored, async (input, signal) => {
      await service.planPreview(input, { ...options, signal });
      return 'application/pdf';
    });
  });

  router.get(routes.previewPath, async (request, response) => {
    const { stored, options } = routes.parsePreview(request);
    await answerStored(request, response, stored, async (input, signal) => ({
      pdf: (await service.preview(input, { ...options, signal })).data,
    }));
  });
}
