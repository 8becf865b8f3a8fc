import { randomUUID } from 'node:crypto';
import { ChatError, type ChatErrorCode } from './errors.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID (any version), in any letter case. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && uuidPattern.test(value);
}

/**
 * Normalises an id taken from a path to lower case. An id that is not a UUID cannot name anything,
 * so it fails like an unknown id (the original answers 404 for it).
 * @throws ChatError with `notFoundCode`
 */
export function parseId(value: string, notFoundCode: ChatErrorCode, what: string): string {
  if (!isUuid(value)) {
    throw new ChatError(
      notFoundCode,
      `expected a ${what} id as a UUID but received ${JSON.stringify(value)}`,
    );
  }
  return value.toLowerCase();
}

/** The key identifying the one_to_one room of two users, whatever their order. */
export function oneToOneKey(firstUserId: string, secondUserId: string): string {
  return [firstUserId, secondUserId].sort().join(':');
}

/**
 * A version 7 UUID (RFC 9562): the current Unix time in milliseconds, then 74 random bits. Rows
 * keyed by such ids are appended at the end of their B-tree instead of landing on a random page,
 * so a creation rewrites pages that are already in the cache.
 */
export function timeOrderedUuid(): string {
  const random = randomUUID();
  const time = Date.now().toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}
