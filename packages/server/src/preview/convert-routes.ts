import {
  type DocumentConverter,
  type DocumentLimits,
  detectDocumentType,
  PreviewError,
} from '@collab-suite/preview-core';
import { Router } from 'express';
import { readUploadedFile } from '../http/multipart.js';
import { parseRequestPart } from '../http/validation.js';
import { convertQuerySchema } from './page-request.js';
import { clientGone } from './pdf-http.js';

/** What the convert endpoint needs. */
export interface ConvertRouteOptions {
  converter: DocumentConverter;
  limits: DocumentLimits;
  /** Largest uploaded file, in bytes (413 past it). */
  maxUploadBytes: number;
}

/**
 * `POST /cool/convert-to/{format}`, compatible with Collabora Online for `pdf`: the document in the
 * multipart field `data`, `lang` as the locale; answers the PDF. Lets one node convert for others
 * (their remote converter points here). Off unless DOCUMENT_CONVERT_ENDPOINT is true.
 */
export function createConvertRoutes({ converter, limits, maxUploadBytes }: ConvertRouteOptions): Router {
  const router = Router();
  router.post('/cool/convert-to/:format', async (request, response) => {
    const format = String(request.params.format);
    if (format !== 'pdf') {
      throw new PreviewError(
        'INVALID_OPTION',
        `expected the target format pdf but received ${JSON.stringify(format)}`,
      );
    }
    const query = parseRequestPart(convertQuerySchema, request.query, 'query');
    const file = await readUploadedFile(request, { fieldName: 'data', maxBytes: maxUploadBytes });
    if (file.data.byteLength > limits.maxInputBytes) {
      throw new PreviewError(
        'INPUT_TOO_LARGE',
        `expected a document of at most ${limits.maxInputBytes} bytes but received ${file.data.byteLength} bytes`,
      );
    }
    const type = await detectDocumentType(file.data, {
      maxEntries: limits.maxZipEntries,
      maxUncompressedBytes: limits.maxUncompressedBytes,
      maxCompressionRatio: limits.maxCompressionRatio,
    });
    const pdf = await converter.convert({
      data: file.data,
      type,
      locale: query.lang,
      signal: clientGone(response),
    });
    response.status(200).set('Cache-Control', 'no-store').type('application/pdf').send(Buffer.from(pdf));
  });
  return router;
}
