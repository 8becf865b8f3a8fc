import type { Request, RequestHandler, Response } from 'express';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { HttpError } from './http-error.js';

/** A rate limit: its middleware and what must be closed with the server. */
export interface RateLimit {
  middleware: RequestHandler;
  close(): void;
}

/** Options of {@link createRateLimit}. */
export interface RateLimitOptions {
  /** Requests allowed per key and minute. */
  perMinute: number;
  /** Names the counters in Redis; one per limit. */
  name: string;
  /** Counted across instances in Redis when given, else in this process. */
  redisUrl: string | undefined;
  /** Longest wait for Redis to count a request; past it the request is counted in this process. @default 2000 */
  redisTimeoutMs?: number;
  /** Whom a request counts against (a user id, a client address). */
  keyOf(request: Request, response: Response): string;
  /** The 429 message, given the limit and the seconds to wait. */
  refusal(perMinute: number, seconds: number): string;
  logger: Logger;
}

/** Longest pause between attempts to reconnect to Redis, so counting spans instances again soon after it returns. */
const redisReconnectMaxDelayMs = 500;

/**
 * At most `perMinute` requests per key and minute, then 429 with `Retry-After`. With Redis the count
 * spans every instance; while Redis is down or slow (no answer within `redisTimeoutMs`) each instance counts on
 * its own in memory (the limit fails open per process, never refusing nor failing because of Redis,
 * and never waiting for it longer than that). rate-limiter-flexible keeps the counters.
 */
export function createRateLimit(options: RateLimitOptions): RateLimit {
  const settings = { points: options.perMinute, duration: 60, keyPrefix: `collab-suite:${options.name}` };
  const memory = new RateLimiterMemory(settings);
  const redisCommandTimeoutMs = options.redisTimeoutMs ?? 2000;
  const redis = options.redisUrl
    ? new Redis(options.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: redisCommandTimeoutMs,
        connectTimeout: redisCommandTimeoutMs,
        retryStrategy: (attempts) => Math.min(attempts * 50, redisReconnectMaxDelayMs),
      })
    : undefined;
  redis?.on('error', () => {});
  const limiter: RateLimiterAbstract = redis
    ? new RateLimiterRedis({
        ...settings,
        storeClient: redis,
        insuranceLimiter: memory,
        rejectIfRedisNotReady: true,
      })
    : memory;
  return {
    async middleware(request, response, next) {
      try {
        await limiter.consume(options.keyOf(request, response));
        next();
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) {
          options.logger.warn(
            { reason: String(refusal) },
            `the ${options.name} limit could not count; letting it pass`,
          );
          next();
          return;
        }
        const seconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
        next(
          new HttpError(429, options.refusal(options.perMinute, seconds), { 'Retry-After': String(seconds) }),
        );
      }
    },
    close() {
      redis?.disconnect();
    },
  };
}
