import { IMAGE_QUALITIES, OUTPUT_FORMATS, SERVICE_TYPES, THUMBNAIL_SHAPES } from '@collab-suite/preview-core';
import toRegexRange from 'to-regex-range';
import { MAX_MULTIPART_FIELDS, MAX_MULTIPART_FILES } from '../http/multipart.js';
import type { OpenApiFragment } from '../openapi/openapi-document.js';
import { MAX_VERSION } from './image-request.js';

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Path parameters and query parameters shared by the preview routes. */
export const previewParameters = {
  id: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'Identifier (UUID) of the stored file.',
    schema: { type: 'string', format: 'uuid' },
  },
  version: {
    name: 'version',
    in: 'path',
    required: true,
    description: 'Version of the stored file.',
    schema: { type: 'integer', minimum: 0, maximum: MAX_VERSION },
  },
  area: {
    name: 'area',
    in: 'path',
    required: true,
    description:
      "Output size `<width>x<height>`; 0 takes the source side (`200x0`: the source's height, as in the original service), sides under 80 become 80. Extension: `<width>x` alone (`200x`) is width-only, the height following the source's aspect ratio. Malformed: 422; a side over PREVIEW_MAX_OUTPUT_SIDE: 400.",
    schema: { type: 'string', pattern: '^[0-9]+x[0-9]*$', maxLength: 64, examples: ['256x256', '200x'] },
  },
  serviceType: {
    name: 'service_type',
    in: 'query',
    required: true,
    description: 'Service that owns the stored file.',
    schema: { type: 'string', enum: [...SERVICE_TYPES] },
  },
  quality: {
    name: 'quality',
    in: 'query',
    required: false,
    description: 'JPEG quality: lowest 1, low 15, medium 50, high 80, highest 95. No effect on png and gif.',
    schema: { type: 'string', enum: [...IMAGE_QUALITIES], default: 'medium' },
  },
  shape: {
    name: 'shape',
    in: 'query',
    required: false,
    description: 'rounded keeps the inscribed ellipse: transparent corners in png and gif, black in jpeg.',
    schema: { type: 'string', enum: [...THUMBNAIL_SHAPES], default: 'rectangular' },
  },
  crop: {
    name: 'crop',
    in: 'query',
    required: false,
    description:
      'true cuts the image to the area; false fits it and adds borders (transparent in png, black in jpeg).',
    schema: { type: 'boolean', default: false },
  },
} as const;

const outputFormat = (defaultText: string) => ({
  name: 'output_format',
  in: 'query',
  required: false,
  description: `Output format; ${defaultText}. gif only for GIF input (animation kept), else 400. webp and avif are this project's extension to the original service (never a default); quality applies to them as to jpeg.`,
  schema: { type: 'string', enum: [...OUTPUT_FORMATS] },
});

const detail = (description: string) => ({
  description,
  content: { 'application/json': { schema: schemaRef('PreviewErrorDetail') } },
});

const imageResponse = {
  description: 'The rendered image.',
  content: Object.fromEntries(
    ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif'].map((type) => [
      type,
      { schema: { type: 'string', format: 'binary' } },
    ]),
  ),
};

/** Error responses every preview route may give, by status. */
export const previewErrorResponses = {
  400: detail(
    `Unreadable input, too many pixels, output too large, gif asked for another format, a render stopped after PREVIEW_RENDER_TIMEOUT_SECONDS, or an upload with more than ${MAX_MULTIPART_FILES} file parts or ${MAX_MULTIPART_FIELDS} fields.`,
  ),
  404: detail('The stored file is not in the storage.'),
  413: detail('The upload (or stored file) is larger than the configured limit.'),
  422: {
    description: 'Validation error.',
    content: { 'application/json': { schema: schemaRef('HTTPValidationError') } },
  },
  502: detail('The storage is unavailable or failing.'),
  503: {
    ...detail('Every render slot and queue place is taken.'),
    headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
  },
} as const;

/** The refusal of an upload past PREVIEW_UPLOADS_PER_MINUTE (uploads only: reads are not counted). */
export const uploadLimitResponses = {
  429: {
    ...detail('More than PREVIEW_UPLOADS_PER_MINUTE uploads from this client address in a minute.'),
    headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
  },
} as const;

/** The refusals of stored-file reads under PREVIEW_STORED_AUTH=token (401) or signed (403). */
export const storedAccessResponses = {
  401: detail(
    'PREVIEW_STORED_AUTH=token: no bearer token or ZM_AUTH_TOKEN cookie, or one that does not verify.',
  ),
  403: detail(
    'PREVIEW_STORED_AUTH=signed: the path has no signature, a signature that does not match it, or has expired.',
  ),
} as const;

/** The query parameters of a signed stored-file path (PREVIEW_STORED_AUTH=signed; see signPreviewPath). */
export const storedAccessParameters = [
  {
    name: 'expires',
    in: 'query',
    required: false,
    description:
      'Signed paths only: when the signature stops being accepted, in seconds since 1970 (signed with the path).',
    schema: { type: 'integer' },
  },
  {
    name: 'signature',
    in: 'query',
    required: false,
    description:
      'PREVIEW_STORED_AUTH=signed: base64url HMAC-SHA256, with PREVIEW_URL_SIGNING_KEY, of the path and query before it; always the last parameter.',
    schema: { type: 'string' },
  },
];

const cachedImageResponse = {
  ...imageResponse,
  headers: {
    ETag: {
      description: 'Same id, version, service type and options give the same tag.',
      schema: { type: 'string' },
    },
    'Cache-Control': { schema: { type: 'string', examples: ['private, max-age=86400, immutable'] } },
  },
};

/** What every multipart upload body may carry, said once for all of them. */
export const multipartLimits = `The first file part of the named field is the upload; other parts are dropped. At most ${MAX_MULTIPART_FILES} file parts and ${MAX_MULTIPART_FIELDS} fields, else 400 naming the limit.`;

const uploadBody = (schemaName: string) => ({
  required: true,
  description: multipartLimits,
  content: { 'multipart/form-data': { schema: schemaRef(schemaName) } },
});

/**
 * The HEAD twin of a stored-file GET: same parameters, ETag, Cache-Control and errors, no body. It
 * reads and checks the stored file but renders or converts nothing, so it is cheap and never 503.
 */
export function storedHead(
  operation: { tags: string[]; summary: string; parameters: unknown[] },
  contentTypes: readonly string[],
  errors: Record<string, unknown>,
) {
  return {
    ...operation,
    parameters: [...operation.parameters, ...storedAccessParameters],
    summary: `Headers of: ${operation.summary.charAt(0).toLowerCase()}${operation.summary.slice(1)}`,
    description:
      'Validates the parameters and reads the stored file (404 when it is missing), then answers the ETag and Cache-Control of the GET and the Content-Type it would have, without rendering or converting (no Content-Length, no body).',
    responses: {
      200: {
        description: `What the GET would answer: ${contentTypes.join(', ')}.`,
        headers: {
          ETag: { description: 'The ETag of the GET.', schema: { type: 'string' } },
          'Cache-Control': { schema: { type: 'string' } },
          'Content-Type': { schema: { type: 'string', enum: [...contentTypes] } },
        },
      },
      304: { description: 'Not modified (If-None-Match matched the ETag).' },
      ...storedAccessResponses,
      ...Object.fromEntries(Object.entries(errors).filter(([status]) => status !== '503')),
    },
  };
}

const storedGet = (summary: string, parameters: unknown[]) => {
  const operation = {
    tags: ['Image'],
    summary,
    parameters: [previewParameters.id, previewParameters.version, previewParameters.area, ...parameters],
  };
  return {
    head: storedHead(operation, ['image/jpeg', 'image/png', 'image/gif'], previewErrorResponses),
    get: {
      ...operation,
      parameters: [...operation.parameters, ...storedAccessParameters],
      responses: {
        200: cachedImageResponse,
        304: { description: 'Not modified (If-None-Match matched the ETag).' },
        ...storedAccessResponses,
        ...previewErrorResponses,
      },
    },
  };
};

const uploadPost = (summary: string, parameters: unknown[], bodySchema: string) => ({
  post: {
    tags: ['Image'],
    summary,
    parameters: [previewParameters.area, ...parameters],
    requestBody: uploadBody(bodySchema),
    responses: { 200: imageResponse, ...previewErrorResponses, ...uploadLimitResponses },
  },
});

const fileBody = {
  type: 'object',
  required: ['file'],
  properties: { file: { type: 'string', format: 'binary' } },
};

/** The image part of the preview API, with the shared error schemas. */
export const previewOpenApi: OpenApiFragment = {
  tags: [
    {
      name: 'Image',
      description: 'Previews and thumbnails of png, jpeg, gif, webp, svg, tiff and avif images.',
    },
  ],
  paths: {
    '/preview/image/{id}/{version}/{area}/thumbnail/': storedGet(
      'Thumbnail of a stored image (always cropped)',
      [
        previewParameters.serviceType,
        previewParameters.shape,
        previewParameters.quality,
        outputFormat('default jpeg'),
      ],
    ),
    '/preview/image/{id}/{version}/{area}/': storedGet('Preview of a stored image', [
      previewParameters.serviceType,
      previewParameters.crop,
      previewParameters.quality,
      outputFormat("default the source's format (svg and webp give png)"),
    ]),
    '/preview/image/{area}/thumbnail/': uploadPost(
      'Thumbnail of an uploaded image (always cropped)',
      [previewParameters.shape, previewParameters.quality, outputFormat('default jpeg')],
      'Body_post_thumbnail_preview_image__area__thumbnail__post',
    ),
    '/preview/image/{area}/': uploadPost(
      'Preview of an uploaded image',
      [
        previewParameters.crop,
        previewParameters.quality,
        outputFormat("default the source's format (svg and webp give png)"),
      ],
      'Body_post_preview_preview_image__area___post',
    ),
  },
  schemas: {
    Body_post_preview_preview_image__area___post: fileBody,
    Body_post_thumbnail_preview_image__area__thumbnail__post: fileBody,
    PreviewErrorDetail: {
      type: 'object',
      required: ['detail'],
      properties: { detail: { type: 'string', description: 'What was expected and what came.' } },
    },
    HTTPValidationError: {
      type: 'object',
      properties: { detail: { type: 'array', items: schemaRef('ValidationError') } },
    },
    ValidationError: {
      type: 'object',
      required: ['loc', 'msg', 'type'],
      properties: {
        loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
        msg: { type: 'string' },
        type: { type: 'string' },
      },
    },
  },
};

/**
 * The `area` pattern with each side bounded by PREVIEW_MAX_OUTPUT_SIDE (leading zeros allowed, as
 * the server reads them), so that the document refuses what the server refuses.
 */
export function boundedAreaPattern(maxOutputSide: number): string {
  const side = `0*${toRegexRange(0, maxOutputSide, { capture: false, shorthand: false })}`;
  return `^${side}x(?:${side})?$`;
}

/**
 * Puts the configured bound of the sides into every `area` path parameter of `paths` (their schema
 * is the unbounded default above, shared by every operation).
 */
export function withAreaBound(
  paths: OpenApiFragment['paths'],
  maxOutputSide: number,
): OpenApiFragment['paths'] {
  const pattern = boundedAreaPattern(maxOutputSide);
  const bound = (parameter: unknown) =>
    parameter === previewParameters.area
      ? {
          ...previewParameters.area,
          description: previewParameters.area.description.replace(
            'PREVIEW_MAX_OUTPUT_SIDE',
            `PREVIEW_MAX_OUTPUT_SIDE (${maxOutputSide} here)`,
          ),
          schema: { ...previewParameters.area.schema, pattern },
        }
      : parameter;
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => {
          const parameters = (operation as { parameters?: unknown[] }).parameters;
          return [
            method,
            parameters ? { ...(operation as object), parameters: parameters.map(bound) } : operation,
          ];
        }),
      ),
    ]),
  );
}
