import type { z } from 'zod';
import { RequestValidationError, type ValidationIssue } from './http-error.js';

/** Where a value came from, as the first element of a validation issue's `loc`. */
export type ValueLocation = 'path' | 'query' | 'header' | 'body';

/** Converts zod issues to `{loc, msg, type}` entries prefixed with the value's location. */
export function toValidationIssues(location: ValueLocation, error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    loc: [location, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))],
    msg: issue.message,
    type: issue.code,
  }));
}

/**
 * Parses one part of a request with a zod schema.
 * @throws RequestValidationError with every issue found.
 */
export function parseRequestPart<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  location: ValueLocation,
): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw new RequestValidationError(toValidationIssues(location, result.error));
  return result.data;
}
