import { LOCALE_PATTERN } from '@collab-suite/preview-core';
import type { OpenApiFragment } from '../openapi/openapi-document.js';
import { MAX_PAGE_NUMBER } from './page-request.js';
import {
  multipartLimits,
  previewErrorResponses,
  previewParameters,
  storedAccessParameters,
  storedAccessResponses,
  storedHead,
  uploadLimitResponses,
} from './preview-openapi.js';

const page = (name: 'first_page' | 'last_page') => ({
  name,
  in: 'query',
  required: false,
  description:
    name === 'first_page'
      ? 'First page, from 1. Past the end, or after last_page: 400 saying how many pages there are.'
      : 'Last page; 0 means the last page, a value past the end is clamped. All pages: the original PDF unchanged.',
  schema: {
    type: 'integer',
    default: name === 'first_page' ? 1 : 0,
    minimum: name === 'first_page' ? 1 : 0,
    maximum: MAX_PAGE_NUMBER,
  },
});

/** `locale`, whose default is DOCUMENT_DEFAULT_LOCALE of this server. */
const localeParameter = (defaultLocale: string) => ({
  name: 'locale',
  in: 'query',
  required: false,
  description:
    'BCP 47 tag (e.g. de-DE; an underscore is read as a hyphen) for number and date formats of the conversion; `lang_tag` is accepted too. The default is DOCUMENT_DEFAULT_LOCALE.',
  schema: { type: 'string', pattern: LOCALE_PATTERN.source, default: defaultLocale },
});

const thumbnailFormat = {
  name: 'output_format',
  in: 'query',
  required: false,
  description: "jpeg (default) or png. webp and avif: this project's extension, never a default.",
  schema: { type: 'string', enum: ['jpeg', 'png', 'webp', 'avif'], default: 'jpeg' },
};

const thumbnailOptions = [previewParameters.shape, previewParameters.quality, thumbnailFormat];

const converterResponses = {
  ...previewErrorResponses,
  400: {
    ...previewErrorResponses[400],
    description: 'Not a supported document, corrupt, encrypted, a zip bomb, or a bad page range.',
  },
  503: {
    ...previewErrorResponses[503],
    description: 'The document converter is unavailable, busy or timed out; retry after Retry-After seconds.',
  },
  507: {
    ...previewErrorResponses[502],
    description:
      "The converter's temporary disk is full (code STORAGE_FULL); nothing of the upload was kept.",
  },
};

const pdfBody = {
  description: 'The selected pages as a PDF.',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};
const imageBody = {
  description: 'A thumbnail of the first page, cropped from the top.',
  content: {
    'image/jpeg': { schema: { type: 'string', format: 'binary' } },
    'image/png': { schema: { type: 'string', format: 'binary' } },
  },
};
const cached = (body: object) => ({
  200: {
    ...body,
    headers: { ETag: { schema: { type: 'string' } }, 'Cache-Control': { schema: { type: 'string' } } },
  },
  304: { description: 'Not modified (If-None-Match matched the ETag).' },
});
const upload = (schema: string) => ({
  required: true,
  description: multipartLimits,
  content: { 'multipart/form-data': { schema: { $ref: `#/components/schemas/${schema}` } } },
});
const stored = [previewParameters.id, previewParameters.version];

/** A stored-file GET and its HEAD twin (see {@link storedHead}). */
function withHead(
  operation: { tags: string[]; summary: string; parameters: unknown[] },
  responses: Record<string, unknown>,
  contentTypes: readonly string[],
  errors: Record<string, unknown>,
) {
  const get = {
    ...operation,
    parameters: [...operation.parameters, ...storedAccessParameters],
    responses: { ...responses, ...storedAccessResponses },
  };
  return { head: storedHead(operation, contentTypes, errors), get };
}

function operations(kind: 'pdf' | 'document', defaultLocale: string) {
  const tag = kind === 'pdf' ? 'PDF' : 'Document';
  const extra = kind === 'document' ? [localeParameter(defaultLocale)] : [];
  const errors = kind === 'document' ? converterResponses : previewErrorResponses;
  const what =
    kind === 'pdf'
      ? 'PDF'
      : 'office document (xls, xlsx, ods, ppt, pptx, odp, doc, docx, odt, and the OpenDocument templates, Writer/Web and master documents)';
  return {
    [`/preview/${kind}/{id}/{version}/`]: withHead(
      {
        tags: [tag],
        summary: `Selected pages of a stored ${what}`,
        parameters: [
          ...stored,
          previewParameters.serviceType,
          page('first_page'),
          page('last_page'),
          ...extra,
        ],
      },
      { ...cached(pdfBody), ...errors },
      ['application/pdf'],
      errors,
    ),
    [`/preview/${kind}/`]: {
      post: {
        tags: [tag],
        summary: `Selected pages of an uploaded ${what}`,
        parameters: [page('first_page'), page('last_page'), ...extra],
        requestBody: upload(`Body_post_preview_preview_${kind}__post`),
        responses: { 200: pdfBody, ...errors, ...uploadLimitResponses },
      },
    },
    [`/preview/${kind}/{area}/thumbnail/`]: {
      post: {
        tags: [tag],
        summary: `Thumbnail of the first page of an uploaded ${what}`,
        parameters: [previewParameters.area, ...thumbnailOptions, ...extra],
        requestBody: upload(`Body_post_thumbnail_preview_${kind}__area__thumbnail__post`),
        responses: { 200: imageBody, ...errors, ...uploadLimitResponses },
      },
    },
    [`/preview/${kind}/{id}/{version}/{area}/thumbnail/`]: withHead(
      {
        tags: [tag],
        summary: `Thumbnail of the first page of a stored ${what}`,
        parameters: [
          ...stored,
          previewParameters.area,
          previewParameters.serviceType,
          ...thumbnailOptions,
          ...extra,
        ],
      },
      { ...cached(imageBody), ...errors },
      ['image/jpeg', 'image/png'],
      errors,
    ),
  };
}

const fileBody = (field: string) => ({
  type: 'object',
  required: [field],
  properties: { [field]: { type: 'string', format: 'binary' } },
});

const convertPath = {
  '/cool/convert-to/{format}': {
    post: {
      tags: ['Conversion'],
      summary: 'Convert an office document to PDF (Collabora Online compatible)',
      parameters: [
        { name: 'format', in: 'path', required: true, schema: { type: 'string', enum: ['pdf'] } },
        {
          name: 'lang',
          in: 'query',
          required: false,
          description: 'Locale, e.g. de-DE.',
          schema: { type: 'string', pattern: LOCALE_PATTERN.source },
        },
      ],
      requestBody: upload('ConvertToBody'),
      responses: {
        200: { description: 'The whole document as PDF.', content: pdfBody.content },
        ...converterResponses,
        ...uploadLimitResponses,
      },
    },
  },
};

/** The PDF and document part of the preview API; the convert endpoint only when it is enabled. */
export function documentOpenApi(withConvertEndpoint: boolean, defaultLocale: string): OpenApiFragment {
  return {
    tags: [
      { name: 'PDF', description: 'Page selections and first-page thumbnails of PDFs.' },
      {
        name: 'Document',
        description: 'Office documents converted to PDF by LibreOffice or a remote converter.',
      },
      ...(withConvertEndpoint
        ? [{ name: 'Conversion', description: 'Document conversion for other nodes.' }]
        : []),
    ],
    paths: {
      ...operations('pdf', defaultLocale),
      ...operations('document', defaultLocale),
      ...(withConvertEndpoint ? convertPath : {}),
    },
    schemas: {
      Body_post_preview_preview_pdf__post: fileBody('file'),
      Body_post_thumbnail_preview_pdf__area__thumbnail__post: fileBody('file'),
      Body_post_preview_preview_document__post: fileBody('file'),
      Body_post_thumbnail_preview_document__area__thumbnail__post: fileBody('file'),
      ...(withConvertEndpoint ? { ConvertToBody: fileBody('data') } : {}),
    },
  };
}
