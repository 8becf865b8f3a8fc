import type { ErrorRequestHandler } from 'express';
import { type MappedError, mapError } from './error-status.js';

/** Turns a mapped error into the response body of one feature (each API has its own error shape). */
export type ErrorBodyFormat = (error: MappedError) => unknown;

/** The preview and health APIs' shape: `{ detail }`, or the HTTPValidationError list for 422. */
export const detailBody: ErrorBodyFormat = (error) => ({ detail: error.issues ?? error.message });

/**
 * Express error middleware: maps the error, logs it (unexpected ones at error level with the stack,
 * client errors at debug), sets headers, and answers with the feature's body format. Internal
 * details never reach the client.
 */
export function createErrorHandler(format: ErrorBodyFormat = detailBody): ErrorRequestHandler {
  return (error, request, response, next) => {
    if (response.headersSent) {
      next(error);
      return;
    }
    const mapped = mapError(error);
    // For the request's log line: the mapped reason, or the unexpected error's own message.
    response.locals.failure = {
      message:
        mapped.status >= 500 && mapped.code === undefined && error instanceof Error
          ? error.message
          : mapped.message,
      ...(mapped.code ? { code: mapped.code } : {}),
    };
    if (mapped.status >= 500 && mapped.code === undefined) {
      request.log?.error({ err: error }, 'unexpected error while handling the request');
    } else {
      // A library's own message (sharp, mupdf, pdf-lib) never reaches the client; the log keeps it.
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
      request.log?.debug(
        { status: mapped.status, code: mapped.code, message: mapped.message, ...(cause ? { cause } : {}) },
        'request refused',
      );
    }
    for (const [name, value] of Object.entries(mapped.headers)) response.setHeader(name, value);
    response.status(mapped.status).json(format(mapped));
  };
}
