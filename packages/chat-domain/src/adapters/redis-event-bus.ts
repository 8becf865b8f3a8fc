import type { Redis } from 'ioredis';
import { loadDriver } from '../drivers.js';
import { ChatError } from '../errors.js';
import type { EventBus, EventBusHealth } from '../ports/event-bus.js';
import {
  type RedisEventBusOptions,
  redisConnectionOptions,
  resolveRedisEventBusOptions,
} from './redis-event-bus-options.js';
import { createRedisEventPublisher, type RedisBusChannels } from './redis-event-publisher.js';
import { createRedisEventSubscriber } from './redis-event-subscriber.js';

export type { RedisEventBusOptions } from './redis-event-bus-options.js';

/**
 * Ready when both connections are up and answer PING within `timeoutMs`; the reason names the
 * connection and its state, never the URL (it may hold a password).
 */
async function probeRedis(
  connections: ReadonlyArray<readonly [role: string, connection: Redis]>,
  timeoutMs: number,
): Promise<EventBusHealth> {
  for (const [role, connection] of connections) {
    if (connection.status !== 'ready') {
      return { ready: false, reason: `the ${role} connection to Redis is ${connection.status}` };
    }
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<EventBusHealth>((resolve) => {
    timer = setTimeout(
      () => resolve({ ready: false, reason: `Redis did not answer PING within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  const pings = Promise.all(connections.map(([, connection]) => connection.ping())).then(
    (): EventBusHealth => ({ ready: true }),
    (error: unknown): EventBusHealth => ({
      ready: false,
      reason: `Redis refused PING: ${error instanceof Error ? error.message : String(error)}`,
    }),
  );
  try {
    return await Promise.race([pings, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reports a connection's first error until it is ready again: not one per reconnection attempt. */
function reportFirstErrorOfEachOutage(connection: Redis, onError: (error: unknown) => void): void {
  let reported = false;
  connection.on('ready', () => {
    reported = false;
  });
  connection.on('error', (error: unknown) => {
    if (reported) return;
    reported = true;
    onError(error);
  });
}

/** Where a Redis URL points, for messages: host, port and database, never a user or password. */
export function redisLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'the configured URL';
  }
}

/**
 * An {@link EventBus} over Redis pub/sub: one channel per user, so each server instance receives
 * only the events of the users connected to it. Two connections: one publishes, one subscribes.
 * Resolves once both are connected. While Redis is away, `publish` keeps events in a bounded
 * backlog (published in order once it returns), `subscribe` registers listeners to subscribe once
 * it returns, and every listener that may have missed events gets a resync signal.
 * @throws ChatError `invalid_input` for bad options, `dependency_failed` when Redis cannot be reached
 */
export async function openRedisEventBus(options: RedisEventBusOptions): Promise<EventBus> {
  const resolved = resolveRedisEventBusOptions(options);
  const onError = resolved.onError ?? (() => {});
  const connectionOptions = redisConnectionOptions(resolved);
  const { Redis: RedisClient } = loadDriver<typeof import('ioredis')>('ioredis');
  const publisher: Redis = new RedisClient(resolved.url, connectionOptions);
  const subscriber: Redis = new RedisClient(resolved.url, connectionOptions);
  reportFirstErrorOfEachOutage(publisher, onError);
  reportFirstErrorOfEachOutage(subscriber, onError);
  const channels: RedisBusChannels = {
    ofUser: (userId) => `${resolved.channelPrefix}user:${userId}`,
    everyone: `${resolved.channelPrefix}resync`,
  };
  const subscriptions = createRedisEventSubscriber(subscriber, channels, onError);
  try {
    await Promise.all([publisher.connect(), subscriber.connect()]);
    await subscriptions.start();
  } catch (error) {
    publisher.disconnect();
    subscriber.disconnect();
    throw new ChatError(
      'dependency_failed',
      `expected Redis at ${redisLocation(resolved.url)} to accept connections but it did not`,
      { cause: error },
    );
  }
  const publishing = createRedisEventPublisher(publisher, channels, resolved, onError);

  let closed = false;
  return {
    async publish(deliveries) {
      if (closed) throw new ChatError('dependency_failed', 'expected an open event bus but it is closed');
      publishing.accept(deliveries);
    },
    subscribe: (userId, listener, onResync) => subscriptions.subscribe(userId, listener, onResync),
    async checkHealth() {
      if (closed) return { ready: false, reason: 'the event bus is closed' };
      return probeRedis(
        [
          ['publishing', publisher],
          ['subscribing', subscriber],
        ],
        resolved.healthTimeoutMs,
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      subscriptions.clear();
      await publishing.close(resolved.commandTimeoutMs);
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
      // QUIT is refused while Redis is away; this also stops reconnecting.
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}
