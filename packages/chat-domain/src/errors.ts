/**
 * Every reason a chat operation can fail. {@link chatErrorHttpStatus} maps each code to one HTTP
 * status in an exhaustive table, so adding a code here does not compile until it has a status there.
 */
export const chatErrorCodes = [
  /** A body, header or query value has the wrong shape or type. */
  'invalid_input',
  /** The operation is not possible for this room or target (a one_to_one room cannot change...). */
  'operation_not_allowed',
  /** The only owner cannot leave or be removed while other members remain. */
  'last_owner',
  /** The user to add is already a member of the room. */
  'already_member',
  /** The room has reached its member limit. */
  'room_full',
  /**
   * A user is in as many rooms as allowed: `maxRoomsPerUser` when others add them, twice that for
   * rooms they create (`details.userId`, `details.maxRoomsPerUser`, `details.limit`).
   */
  'too_many_rooms',
  /** A room picture exceeds the picture size limit. */
  'picture_too_large',
  /** A room picture is not an image (declared type or content). */
  'invalid_picture',
  /** The caller is not a member of the room. */
  'not_a_member',
  /** The operation needs an owner of the room. */
  'not_an_owner',
  /** The caller may not do this even as a member (delete a one_to_one room, another's attachment). */
  'forbidden',
  /** No room with that id. */
  'room_not_found',
  /** The target user is not a member of the room. */
  'member_not_found',
  /** The user directory does not know the user. */
  'user_not_found',
  /** The room has no picture. */
  'picture_not_found',
  /** No attachment with that id. */
  'attachment_not_found',
  /** A one_to_one room between the same two users already exists. */
  'one_to_one_exists',
  /** An attachment exceeds the attachment size limit. */
  'payload_too_large',
  /** The metadata exists but the blob store has no bytes for it. */
  'blob_missing',
  /** A dependency (user directory, event bus, message delivery) failed or did not answer. */
  'dependency_failed',
  /**
   * A backing service (the database, Redis) is away right now: nothing was changed, and the same call
   * works once it is back; `details.dependency` names it, `details.retryAfterSeconds` says when to retry.
   */
  'dependency_unavailable',
  /** The blob store's disk is full: the upload was refused and nothing of it was kept. */
  'storage_full',
  /** No meeting with that id, or the room has no meeting. */
  'meeting_not_found',
  /** The room already has a meeting (one per room). */
  'meeting_exists',
  /** The meeting must be started before anyone joins. */
  'meeting_not_active',
  /** The meeting has as many participants as it may have. */
  'meeting_full',
  /** The user already joined the meeting from this same queue. */
  'already_participant',
  /** The user (the caller or the one to moderate) is not a participant of the meeting. */
  'participant_not_found',
  /** Nobody in the meeting publishes the stream asked for. */
  'stream_not_found',
  /** A session description is malformed or asks for media the meeting cannot carry. */
  'invalid_sdp',
  /** A negotiation step came out of order (an answer without an offer...). */
  'invalid_media_state',
  /** The media server failed. */
  'media_failed',
  /** No media server can take the meeting now (all full or none alive); `details.retryAfterSeconds`. */
  'media_unavailable',
  /**
   * An entry's driver, an optional peer dependency, is not installed (better-sqlite3 for `/sqlite`, pg
   * for `/postgres`, ioredis for `/redis`); `details.package` names the package to install.
   */
  'driver_missing',
] as const;

/** One of {@link chatErrorCodes}. */
export type ChatErrorCode = (typeof chatErrorCodes)[number];

/** Options of {@link ChatError} beyond code and message. */
export interface ChatErrorOptions {
  /** Machine-readable facts about the failure, safe to show to the caller. */
  details?: Record<string, unknown>;
  /** The underlying error, kept for logs. */
  cause?: unknown;
}

/** The one error class of `@collab-suite/chat-domain`; `code` says what went wrong. */
export class ChatError extends Error {
  override readonly name = 'ChatError';
  readonly code: ChatErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ChatErrorCode, message: string, options: ChatErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }
}

/** Whether `value` is a {@link ChatError}, optionally with the given code. */
export function isChatError(value: unknown, code?: ChatErrorCode): value is ChatError {
  return value instanceof ChatError && (code === undefined || value.code === code);
}

/** The ChatError `room_not_found` for `roomId`, which does not exist (or no longer does). */
export function roomNotFound(roomId: string, cause?: unknown): ChatError {
  return new ChatError(
    'room_not_found',
    `expected an existing room but ${roomId} does not exist`,
    cause === undefined ? {} : { cause },
  );
}
