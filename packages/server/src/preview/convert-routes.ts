import {
  type DocumentConverter,
  type DocumentLimits,
  detectDocumentType,
  PreviewError,
} from '@collab-suite/preview-core';
import { Router } from 'express';
import { parseRequestPart } from '../http/validation.js';
import { convertQuerySchema } from './page-request.js';
import { clientGone, type UploadSettings, withUpload } from './pdf-http.js';

/** What the convert endpoint needs. */
export interface ConvertRouteOptions {
  converter: DocumentConverter;
  limits: DocumentLimits;
  uploads: UploadSettings;
}

/**
 * `POST /cool/convert-to/{format}`, compatible with Collabora Online for `pdf`: the document in the
 * multipart field `data`, `lang` as the locale; answers the PDF. Lets one node convert for others
 * (their remote converter points here). Off unless DOCUMENT_CONVERT_ENDPOINT is true.
 */
export function createConvertRoutes({ converter, limits, uploads }: ConvertRouteOptions): Router {
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
    const pdf = await withUpload(request, uploads, 'data', async (data) => {
      if (data.byteLength > limits.maxInputBytes) {
        throw new PreviewError(
          'INPUT_TOO_LARGE',
          `expected a document of at most ${limits.maxInputBytes} bytes but received ${data.byteLength} bytes`,
        );
      }
      const type = await detectDocumentType(data, {
        maxEntries: limits.maxZipEntries,
        maxUncompressedBytes: limits.maxUncompressedBytes,
        maxCompressionRatio: limits.maxCompressionRatio,
      });
      return converter.convert({ data, type, locale: query.lang, signal: clientGone(response) });
    });
    response.status(200).set('Cache-Control', 'no-store').type('application/pdf').send(Buffer.from(pdf));
  });
  return router;
}
