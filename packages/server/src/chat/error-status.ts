import { ChatError, type ChatErrorCode } from '@collab-suite/chat-domain';
import type { ErrorBodyFormat } from '../http/error-handler.js';
import type { LibraryErrorMapper, MappedError } from '../http/error-status.js';

/** Status of every chat-domain error code; a new code does not compile until it is listed here. */
export const chatErrorStatus: Record<ChatErrorCode, number> = {
  invalid_input: 400,
  operation_not_allowed: 400,
  last_owner: 400,
  already_member: 400,
  room_full: 400,
  too_many_rooms: 409,
  picture_too_large: 400,
  invalid_picture: 400,
  not_a_member: 403,
  not_an_owner: 403,
  forbidden: 403,
  room_not_found: 404,
  member_not_found: 404,
  user_not_found: 404,
  picture_not_found: 404,
  attachment_not_found: 404,
  one_to_one_exists: 409,
  payload_too_large: 413,
  blob_missing: 424,
  dependency_failed: 502,
  dependency_unavailable: 503,
  storage_full: 507,
  meeting_not_found: 404,
  meeting_exists: 409,
  meeting_not_active: 409,
  meeting_full: 409,
  already_participant: 409,
  participant_not_found: 404,
  stream_not_found: 404,
  invalid_sdp: 400,
  invalid_media_state: 409,
  media_failed: 424,
  media_unavailable: 503,
};

/** Maps {@link ChatError}s to statuses from {@link chatErrorStatus}. */
export const chatErrorMapper: LibraryErrorMapper = {
  matches: (error) => error instanceof ChatError,
  map(error): MappedError {
    const chatError = error as ChatError;
    const status = chatErrorStatus[chatError.code];
    const retryAfter = chatError.details?.retryAfterSeconds;
    return {
      status,
      message: chatError.message,
      code: chatError.code,
      details: chatError.details,
      headers:
        status === 503 ? { 'Retry-After': String(typeof retryAfter === 'number' ? retryAfter : 5) } : {},
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
