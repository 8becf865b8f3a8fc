import { type ChatErrorCode, isChatError } from './errors.js';

/**
 * The HTTP status of every {@link ChatErrorCode}, for HTTP layers of any framework: 4xx for what the
 * caller can fix or may not do, 503 for a dependency away for now (with Retry-After, see
 * {@link retryAfterSecondsOf}), 507 for a full disk, 500 for a deployment error (`driver_missing`).
 * Exhaustive: a new code does not compile until it has a status here.
 */
export const chatErrorHttpStatus: Readonly<Record<ChatErrorCode, number>> = {
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
  driver_missing: 500,
};

/** The HTTP status of a {@link ChatError} from {@link chatErrorHttpStatus}; undefined for any other value. */
export function httpStatusOf(error: unknown): number | undefined {
  return isChatError(error) ? chatErrorHttpStatus[error.code] : undefined;
}

/** Seconds a client waits before retrying when the error gives none. */
const defaultRetryAfterSeconds = 5;

/**
 * The Retry-After seconds of a {@link ChatError} answered with 503: its `details.retryAfterSeconds`,
 * else 5; undefined for any other error or status.
 */
export function retryAfterSecondsOf(error: unknown): number | undefined {
  if (httpStatusOf(error) !== 503) return undefined;
  const given = (error as { details?: { retryAfterSeconds?: unknown } }).details?.retryAfterSeconds;
  return typeof given === 'number' ? given : defaultRetryAfterSeconds;
}
