import type { RedisOptions } from 'ioredis';
import { z } from 'zod';
import { parseInput } from '../inputs.js';

const functionSchema = <T>() => z.custom<T>((value) => typeof value === 'function');

/** Options of {@link openRedisEventBus}. */
export const redisEventBusOptionsSchema = z.strictObject({
  /** Redis URL, e.g. `redis://127.0.0.1:6379`. */
  url: z.string().min(1),
  /** Prefix of the per-user channels, so several deployments can share one Redis. @default 'collab-suite:chat:' */
  channelPrefix: z.string().default('collab-suite:chat:'),
  /** Called when a listener throws, a message cannot be read or Redis refuses a command. @default ignores the error */
  onError: functionSchema<(error: unknown) => void>().optional(),
  /**
   * Longest wait for Redis to answer the PING of `checkHealth`: a health probe must answer well
   * within the 3 s the server's health routes give every dependency. @default 1000
   */
  healthTimeoutMs: z.number().int().positive().default(1000),
  /**
   * Most events kept in memory while Redis is away, published in order once it returns; past it
   * the oldest are dropped and their users told to resync. Bounds memory: 10 000 small events
   * are a few MiB. @default 10000
   */
  backlogMaxEvents: z.number().int().positive().default(10_000),
  /**
   * Oldest a kept event may be when Redis returns: older ones are dropped and their users told
   * to resync, since a client showing a minute-old change late is worse than refetching. @default 60
   */
  backlogMaxSeconds: z.number().positive().default(60),
  /**
   * Longest wait for any Redis command (SUBSCRIBE, PUBLISH, PING), so a hung Redis never holds a
   * caller past it; commands are refused at once while the connection is down. @default 2000
   */
  commandTimeoutMs: z.number().int().positive().default(2000),
  /**
   * Longest pause between reconnection attempts: everything works again within about this long
   * after Redis returns. @default 500
   */
  reconnectMaxDelayMs: z.number().int().positive().default(500),
  /**
   * Pause after the publishing connection comes back before publishing the kept events, so the
   * subscribing connections of the other instances (which reconnect within `reconnectMaxDelayMs`)
   * are listening again: Redis pub/sub does not replay. Must exceed `reconnectMaxDelayMs`. @default 1000
   */
  reconnectSettleMs: z.number().int().nonnegative().default(1000),
  /** Extra ioredis options (TLS...); they override the ones derived from the options above. */
  redisOptions: z.custom<RedisOptions>((value) => typeof value === 'object' && value !== null).optional(),
});

/** Options of {@link openRedisEventBus}. */
export type RedisEventBusOptions = z.input<typeof redisEventBusOptionsSchema>;

/** {@link RedisEventBusOptions} with every default filled. */
export type ResolvedRedisEventBusOptions = z.output<typeof redisEventBusOptionsSchema>;

/** Parses the options once. @throws ChatError `invalid_input` */
export function resolveRedisEventBusOptions(options: RedisEventBusOptions): ResolvedRedisEventBusOptions {
  return parseInput(redisEventBusOptionsSchema, options, 'Redis event bus options');
}

/**
 * ioredis options that fail fast while Redis is away (no offline queue, one attempt per command,
 * `commandTimeoutMs`) and reconnect every `reconnectMaxDelayMs` at most, forever. The bus keeps
 * its own backlog and subscriptions, so ioredis's resubscription is off.
 */
export function redisConnectionOptions(options: ResolvedRedisEventBusOptions): RedisOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResubscribe: false,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: options.commandTimeoutMs,
    retryStrategy: (attempts: number) => Math.min(attempts * 50, options.reconnectMaxDelayMs),
    ...options.redisOptions,
  };
}
