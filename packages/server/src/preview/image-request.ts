import {
  type Area,
  IMAGE_QUALITIES,
  OUTPUT_FORMATS,
  SERVICE_TYPES,
  THUMBNAIL_SHAPES,
} from '@collab-suite/preview-core';
import { z } from 'zod';

const AREA_TEXT = /^[0-9]+x[0-9]*$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;

const side = (digits: string) => Math.min(Number(digits), Number.MAX_SAFE_INTEGER);

/**
 * `area` path segment: `<width>x<height>`, digits only, or the width-only extension `<width>x`; sizes
 * are checked against the limit later (400).
 */
export const areaSchema = z
  .string()
  .refine((value) => AREA_TEXT.test(value), {
    error: (issue) =>
      `expected area like 256x256 (<width>x<height>, digits only, 0 = source size) but received ${JSON.stringify(issue.input)}`,
  })
  .transform((value): Area => {
    const [width = '0', height = ''] = value.split('x');
    if (height === '') return { width: side(width), height: 0, widthOnly: true };
    return { width: side(width), height: side(height) };
  });

/** Longest `version` the server reads: 15 digits, so every accepted value is a safe integer. */
const VERSION_DIGITS = 15;
/** Largest stored-file version accepted (the OpenAPI document's `maximum`). */
export const MAX_VERSION = 10 ** VERSION_DIGITS - 1;

/** Path of stored-file routes. */
export const storedFilePathSchema = z.object({
  id: z.string().regex(UUID, {
    error: (issue) => `expected id to be a UUID but received ${JSON.stringify(issue.input)}`,
  }),
  version: z
    .string()
    .regex(new RegExp(`^[0-9]{1,${VERSION_DIGITS}}$`), {
      error: (issue) =>
        `expected version to be a non-negative integer but received ${JSON.stringify(issue.input)}`,
    })
    .transform(Number),
  area: areaSchema,
});

/** Path of upload routes. */
export const uploadPathSchema = z.object({ area: areaSchema });

const enumWithMessage = <Values extends readonly [string, ...string[]]>(name: string, values: Values) =>
  z.enum(values, {
    error: (issue) =>
      `expected ${name} to be one of ${values.join(', ')} but received ${JSON.stringify(issue.input)}`,
  });

const booleanText = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
    error: (issue) => `expected crop to be true or false but received ${JSON.stringify(issue.input)}`,
  })
  .transform((value) => value === 'true' || value === '1' || value === 'yes' || value === 'on');

const commonQuery = {
  quality: enumWithMessage('quality', IMAGE_QUALITIES).default('medium'),
  output_format: enumWithMessage('output_format', OUTPUT_FORMATS).optional(),
};

const serviceType = { service_type: enumWithMessage('service_type', SERVICE_TYPES) };

/** Query of preview routes (uploads). */
export const previewQuerySchema = z.object({ ...commonQuery, crop: booleanText.default(false) });
/** Query of thumbnail routes (uploads). */
export const thumbnailQuerySchema = z.object({
  ...commonQuery,
  shape: enumWithMessage('shape', THUMBNAIL_SHAPES).default('rectangular'),
});
/** Query of preview routes of stored files. */
export const storedPreviewQuerySchema = previewQuerySchema.extend(serviceType);
/** Query of thumbnail routes of stored files. */
export const storedThumbnailQuerySchema = thumbnailQuerySchema.extend(serviceType);
