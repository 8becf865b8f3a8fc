import type { ErrorRequestHandler } from 'express';
import { RequestValidationError } from './http-error.js';

/** What a client is told when a path segment cannot be percent-decoded. */
export const malformedPathMessage =
  'expected every percent-escape in the URL path to encode UTF-8 (like %C3%A9) but a path segment has a malformed one';

/**
 * True for the error Express's router raises when a route parameter cannot be percent-decoded (a
 * URIError marked 400): the request's fault, never the server's.
 */
export function isMalformedPathError(error: unknown): boolean {
  return error instanceof URIError && (error as URIError & { status?: unknown }).status === 400;
}

/** For APIs whose spec answers bad path parameters with 422 validation errors (the preview API). */
export const malformedPathAsValidationError: ErrorRequestHandler = (error, _request, _response, next) => {
  next(
    isMalformedPathError(error)
      ? new RequestValidationError([{ loc: ['path'], msg: malformedPathMessage, type: 'value_error' }])
      : error,
  );
};
