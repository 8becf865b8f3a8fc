import { IMAGE_QUALITIES, OUTPUT_FORMATS, SERVICE_TYPES, THUMBNAIL_SHAPES } from '@collab-suite/preview-core';
import { z } from 'zod';
import { storedFilePathSchema } from './image-request.js';

const enumWithMessage = <Values extends readonly [string, ...string[]]>(name: string, values: Values) =>
  z.enum(values, {
    error: (issue) =>
      `expected ${name} to be one of ${values.join(', ')} but received ${JSON.stringify(issue.input)}`,
  });

/** Longest page number read: 9 digits. */
const PAGE_DIGITS = 9;
/** Largest page number the server reads (the OpenAPI document's `maximum`). */
export const MAX_PAGE_NUMBER = 10 ** PAGE_DIGITS - 1;

/** A page number: whole digits (422 otherwise); whether it is in range is the library's call (400). */
const pageNumber = (name: string, fallback: number) =>
  z
    .string()
    .regex(new RegExp(`^-?[0-9]{1,${PAGE_DIGITS}}$`), {
      error: (issue) => `expected ${name} to be a whole number but received ${JSON.stringify(issue.input)}`,
    })
    .transform(Number)
    .default(fallback);

const pages = { first_page: pageNumber('first_page', 1), last_page: pageNumber('last_page', 0) };
const serviceType = { service_type: enumWithMessage('service_type', SERVICE_TYPES) };
/** `locale` (0.4-0.6.1) and its later name `lang_tag`; the library checks the tag itself (400). */
const locale = { locale: z.string().max(64).optional(), lang_tag: z.string().max(64).optional() };
const thumbnail = {
  shape: enumWithMessage('shape', THUMBNAIL_SHAPES).default('rectangular'),
  quality: enumWithMessage('quality', IMAGE_QUALITIES).default('medium'),
  output_format: enumWithMessage('output_format', OUTPUT_FORMATS).optional(),
};

/** Path of stored-file PDF and document previews (no area). */
export const storedDocumentPathSchema = storedFilePathSchema.pick({ id: true, version: true });
/** Path of stored-file PDF and document thumbnails. */
export { storedFilePathSchema as storedThumbnailPathSchema } from './image-request.js';
/**
 * Path of PDF and document thumbnails of uploads. Built once here: a schema derived inside a handler
 * is compiled again by zod on every request.
 */
export const uploadThumbnailPathSchema = storedFilePathSchema.pick({ area: true });

/** Query of POST /preview/pdf/. */
export const pdfPreviewQuerySchema = z.object(pages);
/** Query of GET /preview/pdf/{id}/{version}/. */
export const storedPdfPreviewQuerySchema = z.object({ ...pages, ...serviceType });
/** Query of PDF thumbnails of uploads. */
export const pdfThumbnailQuerySchema = z.object(thumbnail);
/** Query of PDF thumbnails of stored files. */
export const storedPdfThumbnailQuerySchema = z.object({ ...thumbnail, ...serviceType });
/** Query of POST /preview/document/. */
export const documentPreviewQuerySchema = z.object({ ...pages, ...locale });
/** Query of GET /preview/document/{id}/{version}/. */
export const storedDocumentPreviewQuerySchema = z.object({ ...pages, ...locale, ...serviceType });
/** Query of document thumbnails of uploads. */
export const documentThumbnailQuerySchema = z.object({ ...thumbnail, ...locale });
/** Query of document thumbnails of stored files. */
export const storedDocumentThumbnailQuerySchema = z.object({ ...thumbnail, ...locale, ...serviceType });
/** Query of POST /cool/convert-to/{format}. */
export const convertQuerySchema = z.object({ lang: z.string().max(64).optional() });

/** The locale a document request names, under either spelling. */
export function requestedLocale(query: { locale?: string | undefined; lang_tag?: string | undefined }) {
  return query.locale ?? query.lang_tag;
}
