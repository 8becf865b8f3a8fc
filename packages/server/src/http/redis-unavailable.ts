import type { MappedError } from './mapped-error.js';

/** What ioredis rejects a command with when Redis is down, unreachable or not answering in time. */
const unavailableMessages = [
  /^Connection is closed\.$/,
  /^Stream isn't writeable and enableOfflineQueue options is false$/,
  /^Command timed out$/,
  /^Reached the max retries per request limit/,
  /^connect (ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH)/,
];

/** Seconds a client is told to wait before retrying: Redis clients here reconnect within a second. */
const retryAfterSeconds = 2;

/**
 * Whether `error` (or its `cause`) is ioredis saying Redis is unavailable rather than refusing the
 * command: such a failure is temporary, so the request may be retried.
 */
export function isRedisUnavailableError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 3; depth += 1) {
    if (current.name === 'MaxRetriesPerRequestError') return true;
    if (unavailableMessages.some((pattern) => pattern.test(current instanceof Error ? current.message : '')))
      return true;
    current = current.cause;
  }
  return false;
}

/**
 * The answer to a request that failed because Redis is unavailable: 503 `dependency_unavailable`
 * with `Retry-After`, never a 500.
 */
export function redisUnavailableAnswer(): MappedError {
  return {
    status: 503,
    code: 'dependency_unavailable',
    message: `expected Redis to answer but it is unavailable; retry in ${retryAfterSeconds} s`,
    details: { retryAfterSeconds },
    headers: { 'Retry-After': String(retryAfterSeconds) },
  };
}
