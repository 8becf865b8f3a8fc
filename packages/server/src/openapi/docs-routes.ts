import { createRequire } from 'node:module';
import express, { Router } from 'express';
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

/** `/openapi.json`, and (when enabled) the interactive docs page at `/docs` served from swagger-ui-dist. */
export function createDocsRouter(document: OpenApiDocument, docsEnabled: boolean): Router {
  const router = Router();
  router.get('/openapi.json', (_request, response) => {
    response.json(document);
  });
  if (!docsEnabled) return router;
  const require = createRequire(import.meta.url);
  const assets: string = require('swagger-ui-dist').getAbsoluteFSPath();
  router.use('/docs/assets', express.static(assets, { index: false, maxAge: '1d' }));
  router.get('/docs/start.js', (_request, response) => {
    response.type('application/javascript').send(startScript);
  });
  router.get(['/docs', '/docs/'], (_request, response) => {
    response.type('html').send(docsPage);
  });
  return router;
}
