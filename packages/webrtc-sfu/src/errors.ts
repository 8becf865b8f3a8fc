/**
 * Every reason an SFU operation can fail. The server maps each code to one HTTP status in an
 * exhaustive table, so adding a code here does not compile until it has a status there.
 */
export const sfuErrorCodes = [
  /** The options given to {@link createSfu} do not match the schema. */
  'invalid_options',
  /** A session description is not SDP at all, is too large, or lacks a required line. */
  'invalid_sdp',
  /** A well-formed session description asks for media this connection cannot carry (kind, direction, codec). */
  'unsupported_media',
  /** The operation does not fit the current negotiation state (an answer without an offer, ...). */
  'invalid_state',
  /** The router, session, producer or consumer has been closed. */
  'closed',
  /** A router with that id is already open. */
  'router_exists',
  /** The router already has a session for that participant. */
  'session_exists',
  /** The router has no session for that participant. */
  'session_not_found',
  /** No participant publishes a stream of that kind in this router. */
  'stream_not_found',
  /** A configured limit (sessions per router, subscriptions per session) would be exceeded. */
  'limit_exceeded',
  /** The WebRTC stack refused a description that passed validation. */
  'negotiation_failed',
] as const;

/** One of {@link sfuErrorCodes}. */
export type SfuErrorCode = (typeof sfuErrorCodes)[number];

/** Options of {@link SfuError} beyond code and message. */
export interface SfuErrorOptions {
  /** Machine-readable facts about the failure, safe to show to the caller. */
  details?: Record<string, unknown>;
  /** The underlying error, kept for logs. */
  cause?: unknown;
}

/** The one error class of `@collab-suite/webrtc-sfu`; `code` says what went wrong. */
export class SfuError extends Error {
  override readonly name = 'SfuError';
  readonly code: SfuErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: SfuErrorCode, message: string, options: SfuErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }
}

/** Whether `value` is an {@link SfuError}, optionally with the given code. */
export function isSfuError(value: unknown, code?: SfuErrorCode): value is SfuError {
  return value instanceof SfuError && (code === undefined || value.code === code);
}
