import { createRequire } from 'node:module';
import express, { type RequestHandler, Router } from 'express';
import type { OpenApiDocument } from './openapi-document.js';

const docsPage = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>collab-suite API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/start.js"></script>
</body>
</html>`;

const startScript = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true });`;

/** Answers `GET /openapi.json` with the assembled document, serialised once. */
export function createOpenApiHandler(document: OpenApiDocument): RequestHandler {
  const body = JSON.stringify(document);
  return (_request, response) => {
    response.type('json').send(body);
  };
}

/** The interactive docs page and its swagger-ui-dist assets, to mount at `/docs`. */
export function createDocsRouter(): Router {
  const router = Router();
  const require = createRequire(import.meta.url);
  const assets: string = require('swagger-ui-dist').getAbsoluteFSPath();
  router.use('/assets', express.static(assets, { index: false, maxAge: '1d' }));
  router.get('/start.js', (_request, response) => {
    response.type('application/javascript').send(startScript);
  });
  router.get('/', (_request, response) => {
    response.type('html').send(docsPage);
  });
  return router;
}
