import type { OutputFormat, PdfPreview, PreviewInput, RenderedImage } from '@collab-suite/preview-core';
import type { Request, Router } from 'express';
import { answerStored, answerStoredHead, type RouteResult, type StoredRequest } from './pdf-http.js';
import type { StoredRenderCache } from './render-cache.js';

type WithSignal<Options> = Options & { signal: AbortSignal };

/** A stored-file request as its route parses it: the ETag parts, and the options for the service. */
export interface ParsedStoredRequest<Options> {
  stored: StoredRequest;
  options: Options;
}

/** One stored-file route: how a request is parsed, what HEAD checks, what GET answers. */
export interface StoredRoute<Options> {
  path: string;
  parse(request: Request): ParsedStoredRequest<Options>;
  /** The cheap checks of a render (no rendering, no converting); resolves to the Content-Type. */
  plan(input: PreviewInput, options: WithSignal<Options>): Promise<string>;
  render(input: PreviewInput, options: WithSignal<Options>): Promise<RouteResult>;
}

/**
 * Adds HEAD and GET of a stored-file route to `router`. HEAD comes before GET: Express would
 * otherwise answer HEAD with the GET handler, rendering or converting; HEAD only plans. GET answers
 * from `renderCache` when the render is kept there.
 */
export function addStoredRoute<Options>(
  router: Router,
  route: StoredRoute<Options>,
  renderCache: StoredRenderCache,
): void {
  router.head(route.path, async (request, response) => {
    const { stored, options } = route.parse(request);
    await answerStoredHead(request, response, stored, (input, signal) =>
      route.plan(input, { ...options, signal }),
    );
  });
  router.get(route.path, async (request, response) => {
    const { stored, options } = route.parse(request);
    await answerStored(
      request,
      response,
      stored,
      (input, signal) => route.render(input, { ...options, signal }),
      renderCache,
    );
  });
}

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

/** The two stored-file routes of a page service: a thumbnail of the first page, and a PDF of pages. */
export interface StoredPageRoutes<ThumbnailOptions, PreviewOptions> {
  service: PageService<ThumbnailOptions, PreviewOptions>;
  thumbnailPath: string;
  parseThumbnail(request: Request): ParsedStoredRequest<ThumbnailOptions>;
  previewPath: string;
  parsePreview(request: Request): ParsedStoredRequest<PreviewOptions>;
}

/** Adds HEAD and GET of both stored-file routes of a page service to `router`. */
export function addStoredPageRoutes<ThumbnailOptions, PreviewOptions>(
  router: Router,
  routes: StoredPageRoutes<ThumbnailOptions, PreviewOptions>,
  renderCache: StoredRenderCache,
): void {
  const { service } = routes;
  addStoredRoute(
    router,
    {
      path: routes.thumbnailPath,
      parse: routes.parseThumbnail,
      plan: async (input, options) => `image/${(await service.planThumbnail(input, options)).format}`,
      render: async (input, options) => ({ image: await service.thumbnail(input, options) }),
    },
    renderCache,
  );
  addStoredRoute(
    router,
    {
      path: routes.previewPath,
      parse: routes.parsePreview,
      plan: async (input, options) => {
        await service.planPreview(input, options);
        return 'application/pdf';
      },
      render: async (input, options) => ({ pdf: (await service.preview(input, options)).data }),
    },
    renderCache,
  );
}
