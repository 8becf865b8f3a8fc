import { isSfuError, type SfuErrorCode } from '../errors.js';

/**
 * The HTTP status of every {@link SfuErrorCode}, for an application that lets SFU errors reach its
 * HTTP layer (Express, Fastify, Hono...); a new code does not compile until it is listed here.
 */
export const sfuErrorStatus: Readonly<Record<SfuErrorCode, number>> = {
  // Options are the application's, checked at start: a programming error, not a client's request.
  invalid_options: 500,
  invalid_sdp: 400,
  unsupported_media: 400,
  negotiation_failed: 400,
  invalid_state: 409,
  // The router, session or stream the request names is gone.
  closed: 410,
  router_exists: 409,
  session_exists: 409,
  session_not_found: 404,
  stream_not_found: 404,
  limit_exceeded: 409,
};

/** The HTTP status for an {@link SfuError}: {@link sfuErrorStatus} of its code; 500 for anything else. */
export function httpStatusOf(error: unknown): number {
  return isSfuError(error) ? sfuErrorStatus[error.code] : 500;
}
