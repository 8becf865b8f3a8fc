import type { Logger } from 'pino';
import { createRateLimit, type RateLimit } from '../http/rate-limit.js';
import { actorOf } from './actor.js';

/**
 * At most `perMinute` rooms created per user per minute (429 with `Retry-After` past it), counted
 * across every server instance in Redis when there is one, else in this process.
 */
export function createRoomCreationLimit(options: {
  perMinute: number;
  redisUrl: string | undefined;
  redisTimeoutMs?: number;
  logger: Logger;
}): RateLimit {
  return createRateLimit({
    ...options,
    name: 'room-creations',
    keyOf: (_request, response) => actorOf(response).userId,
    refusal: (perMinute, seconds) =>
      `expected at most ${perMinute} new rooms per minute but this user created that many; retry in ${seconds} s`,
  });
}
