import { ChatError, httpStatusOf, retryAfterSecondsOf } from '@collab-suite/chat-domain';
import type { ErrorBodyFormat } from '../http/error-handler.js';
import type { LibraryErrorMapper, MappedError } from '../http/mapped-error.js';

/** Maps {@link ChatError}s to statuses with the library's own table (`httpStatusOf`, `retryAfterSecondsOf`). */
export const chatErrorMapper: LibraryErrorMapper = {
  matches: (error) => error instanceof ChatError,
  map(error): MappedError {
    const chatError = error as ChatError;
    const status = httpStatusOf(chatError) ?? 500;
    const retryAfter = retryAfterSecondsOf(chatError);
    return {
      status,
      message: chatError.message,
      code: chatError.code,
      details: chatError.details,
      headers: retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) },
    };
  },
};

const codeOfStatus: Record<number, string> = {
  400: 'invalid_input',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** The chat API's error body: `{ code, message }` (the original sent none; the status means the same). */
export const chatErrorBody: ErrorBodyFormat = (error) => ({
  code: error.code ?? codeOfStatus[error.status] ?? (error.status >= 500 ? 'internal' : 'error'),
  message: error.message,
});
