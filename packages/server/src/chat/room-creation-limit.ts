import type { RequestHandler } from 'express';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { HttpError } from '../http/http-error.js';
import { actorOf } from './actor.js';

/** The room creation limit: its middleware and what must be closed with the server. */
export interface RoomCreationLimit {
  middleware: RequestHandler;
  close(): void;
}

/**
 * At most `perMinute` rooms created per user per minute (429 with `Retry-After` past it), counted
 * across every server instance in Redis when there is one, else in this process. If Redis stops
 * answering, each instance counts on its own meanwhile (a limit that fails open, never a refusal).
 */
export function createRoomCreationLimit(options: {
  perMinute: number;
  redisUrl: string | undefined;
  logger: Logger;
}): RoomCreationLimit {
  const settings = { points: options.perMinute, duration: 60, keyPrefix: 'collab-suite:room-creations' };
  const memory = new RateLimiterMemory(settings);
  const redis = options.redisUrl ? new Redis(options.redisUrl, { enableOfflineQueue: false }) : undefined;
  redis?.on('error', () => {});
  const limiter: RateLimiterAbstract = redis
    ? new RateLimiterRedis({ ...settings, storeClient: redis, insuranceLimiter: memory })
    : memory;
  return {
    async middleware(_request, response, next) {
      const { userId } = actorOf(response);
      try {
        await limiter.consume(userId);
        next();
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) {
          options.logger.warn({ err: refusal }, 'the room creation limit could not count; letting it pass');
          next();
          return;
        }
        const seconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
        next(
          new HttpError(
            429,
            `expected at most ${options.perMinute} new rooms per minute but this user created that many; retry in ${seconds} s`,
            { 'Retry-After': String(seconds) },
          ),
        );
      }
    },
    close() {
      redis?.disconnect();
    },
  };
}
