// A Fastify service using two collab-suite libraries directly: image thumbnails (preview-core's
// images-only entry, no mupdf or pdf-lib needed) and SAML service-provider metadata (saml-config).
// Errors get their HTTP status from each library's own table, not from a copy kept here.

import { httpStatusOf as previewStatusOf, retryAfterSecondsOf } from '@collab-suite/preview-core/http';
import { createPreviewService, isPreviewError } from '@collab-suite/preview-core/image';
import {
  createMemorySamlPropertyStore,
  createSamlConfigService,
  isSamlConfigError,
} from '@collab-suite/saml-config';
import Fastify from 'fastify';

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/tiff'];

/** saml-config's code → status table, when this saml-config has its `/http` entry (else 400). */
async function samlStatusOf() {
  try {
    const { httpStatusOf } = await import('@collab-suite/saml-config/http');
    return httpStatusOf;
  } catch {
    return () => 400;
  }
}

/**
 * The Fastify instance: `POST /thumbnails/:area` (the image as the body, `?format=png|webp|...`) and
 * `GET /saml/:domain/metadata`. Close it with `app.close()`; the services close with it.
 */
export async function buildApp({ publicUrl = 'https://sp.example.com', logger = false } = {}) {
  const previews = createPreviewService({
    limits: { maxConcurrentRenders: 2, maxInputBytes: 20 * 1024 * 1024 },
  });
  const saml = createSamlConfigService({ store: createMemorySamlPropertyStore(), publicUrl });
  const samlStatus = await samlStatusOf();
  const app = Fastify({ logger, bodyLimit: previews.limits.maxInputBytes });

  app.addContentTypeParser(
    [...IMAGE_TYPES, 'application/octet-stream'],
    { parseAs: 'buffer' },
    (_request, body, done) => done(null, body),
  );

  app.post('/thumbnails/:area', async (request, reply) => {
    if (!Buffer.isBuffer(request.body)) {
      return reply.code(415).send({ error: `expected an image body (${IMAGE_TYPES.join(', ')})` });
    }
    const image = await previews.imageThumbnail(request.body, {
      area: request.params.area,
      outputFormat: request.query.format,
      shape: request.query.shape,
    });
    return reply.type(`image/${image.format}`).send(image.data);
  });

  app.get('/saml/:domain/metadata', async (request, reply) => {
    const { xml } = await saml.spMetadata(request.params.domain);
    return reply.type('application/samlmetadata+xml').send(xml);
  });

  app.setErrorHandler((error, _request, reply) => {
    if (isPreviewError(error)) {
      const retryAfter = retryAfterSecondsOf(error);
      if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
      return reply.code(previewStatusOf(error)).send({ code: error.code, error: error.message });
    }
    if (isSamlConfigError(error)) {
      return reply.code(samlStatus(error)).send({ code: error.code, error: error.message });
    }
    // Fastify's own refusals (body too large, unsupported media type) carry their status.
    const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 500;
    return reply.code(status).send({ error: status === 500 ? 'internal error' : error.message });
  });

  app.addHook('onClose', async () => {
    await saml.close();
  });
  return app;
}
