import { Redis, type RedisOptions } from 'ioredis';
import { ChatError } from '../errors.js';
import type { EventDelivery } from '../events.js';
import type { EventBus, EventBusHealth, EventListener, EventSubscription } from '../ports/event-bus.js';
import { ListenerRegistry } from './memory-event-bus.js';

/** Options of {@link openRedisEventBus}. */
export interface RedisEventBusOptions {
  /** Redis URL, e.g. `redis://127.0.0.1:6379`. */
  url: string;
  /** Prefix of the per-user channels, so several deployments can share one Redis. @default 'collab-suite:chat:' */
  channelPrefix?: string;
  /** Called when a listener throws, a message cannot be read or Redis refuses an unsubscribe. @default ignores the error */
  onError?: (error: unknown) => void;
  /**
   * Longest wait for Redis to answer the PING of {@link EventBus.checkHealth}: a health probe must
   * answer well within the 3 s the server's health routes give every dependency. @default 1000
   */
  healthTimeoutMs?: number;
  /** Extra ioredis options (timeouts, TLS...). */
  redisOptions?: RedisOptions;
}

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

/**
 * An {@link EventBus} over Redis pub/sub: one channel per user, so each server instance receives
 * only the events of the users connected to it. Two connections: one publishes, one subscribes.
 * Resolves once both are connected.
 */
export async function openRedisEventBus(options: RedisEventBusOptions): Promise<EventBus> {
  const prefix = options.channelPrefix ?? 'collab-suite:chat:';
  const healthTimeoutMs = options.healthTimeoutMs ?? 1000;
  const onError = options.onError ?? (() => {});
  const connectionOptions: RedisOptions = {
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    ...options.redisOptions,
  };
  const publisher = new Redis(options.url, connectionOptions);
  const subscriber = new Redis(options.url, connectionOptions);
  publisher.on('error', onError);
  subscriber.on('error', onError);
  try {
    await Promise.all([publisher.connect(), subscriber.connect()]);
  } catch (error) {
    publisher.disconnect();
    subscriber.disconnect();
    throw new ChatError(
      'dependency_failed',
      `expected Redis at ${options.url} to accept connections but it did not`,
      {
        cause: error,
      },
    );
  }
  const registry = new ListenerRegistry();
  const subscribed = new Map<string, Promise<unknown>>();
  const channelOf = (userId: string) => `${prefix}user:${userId}`;

  subscriber.on('message', (_channel: string, message: string) => {
    try {
      registry.deliver(JSON.parse(message) as EventDelivery, onError);
    } catch (error) {
      onError(error);
    }
  });

  let closed = false;
  return {
    async publish(deliveries) {
      if (deliveries.length === 0) return;
      const pipeline = publisher.pipeline();
      for (const delivery of deliveries)
        pipeline.publish(channelOf(delivery.userId), JSON.stringify(delivery));
      const results = (await pipeline.exec()) ?? [];
      const failure = results.find(([error]) => error !== null)?.[0];
      if (failure) {
        throw new ChatError('dependency_failed', 'expected Redis to accept the events but it refused', {
          cause: failure,
        });
      }
    },
    async subscribe(userId: string, listener: EventListener): Promise<EventSubscription> {
      if (registry.add(userId, listener)) subscribed.set(userId, subscriber.subscribe(channelOf(userId)));
      await subscribed.get(userId);
      let active = true;
      return {
        async unsubscribe() {
          if (!active) return;
          active = false;
          if (registry.remove(userId, listener)) {
            subscribed.delete(userId);
            // The listener is gone already, so nothing more reaches it; Redis being down only leaves
            // a channel subscribed, which is reported but is no failure of the caller's.
            if (!closed) await subscriber.unsubscribe(channelOf(userId)).catch(onError);
          }
        },
      };
    },
    async checkHealth() {
      if (closed) return { ready: false, reason: 'the event bus is closed' };
      return probeRedis(
        [
          ['publishing', publisher],
          ['subscribing', subscriber],
        ],
        healthTimeoutMs,
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      registry.clear();
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
    },
  };
}
