import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler, Router } from 'express';
import { pageSecurityHeaders } from '../http/page-security-headers.js';

/** The page: swagger-ui on `/openapi.json`, below a link to the AsyncAPI document when there is one. */
function docsPage(asyncApi: boolean): string {
  const events = asyncApi
    ? `
  <p style="font-family: sans-serif; margin: 1em 20px">
    The <code>/events</code> WebSocket (every event and its payload) is described in AsyncAPI 3.0:
    <a id="asyncapi" href="/asyncapi.json">/asyncapi.json</a>.
  </p>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>collab-suite API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>${events}
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/start.js"></script>
</body>
</html>`;
}

const startScript = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true });`;

/**
 * Where swagger-ui's bundle and stylesheet are: copied beside the build (dist/docs-assets, see
 * tsup.config.ts), so the published server does not depend on swagger-ui-dist and its telemetry
 * postinstall; from the sources (tests), the devDependency's own folder.
 */
function docsAssetsFolder(): string {
  if (!import.meta.url.endsWith('.ts')) return fileURLToPath(new URL('./docs-assets/', import.meta.url));
  return createRequire(import.meta.url)('swagger-ui-dist').getAbsoluteFSPath();
}

/** Answers `GET /openapi.json` (or `/asyncapi.json`) with the document, serialised once. */
export function createOpenApiHandler(document: object): RequestHandler {
  const body = JSON.stringify(document);
  return (_request, response) => {
    response.type('json').send(body);
  };
}

/**
 * The interactive docs page and its swagger-ui-dist assets, to mount at `/docs`; with `asyncApi`,
 * the page links `/asyncapi.json`.
 */
export function createDocsRouter(options: { asyncApi: boolean; publicUrl?: string | undefined }): Router {
  const page = docsPage(options.asyncApi);
  const router = Router();
  // swagger-ui sets style attributes and draws data: SVG icons; "Try it out" calls PUBLIC_URL.
  router.use(
    pageSecurityHeaders({
      styleSources: ["'unsafe-inline'"],
      imageSources: ['data:'],
      connectSources: options.publicUrl === undefined ? [] : [new URL(options.publicUrl).origin],
    }),
  );
  router.use('/assets', express.static(docsAssetsFolder(), { index: false, maxAge: '1d' }));
  router.get('/start.js', (_request, response) => {
    response.type('application/javascript').send(startScript);
  });
  router.get('/', (_request, response) => {
    response.type('html').send(page);
  });
  return router;
}
