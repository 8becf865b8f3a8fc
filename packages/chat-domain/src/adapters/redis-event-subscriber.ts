import type { Redis } from 'ioredis';
import type { EventListener, EventSubscription, ResyncListener } from '../ports/event-bus.js';
import { ListenerRegistry } from './memory-event-bus.js';
import type { RedisBusChannels, RedisBusMessage } from './redis-event-publisher.js';

/** The subscribing half of the Redis event bus. */
export interface RedisEventSubscriber {
  /** Subscribes the resync channel; rejects when Redis refuses. */
  start(): Promise<void>;
  subscribe(userId: string, listener: EventListener, onResync?: ResyncListener): Promise<EventSubscription>;
  /** Forgets every listener. */
  clear(): void;
}

const retryMs = 1000;

/**
 * Keeps one Redis channel subscribed per user with listeners in this process. The bus owns the
 * subscriptions (ioredis's own resubscription is off): whenever the connection comes back, or a
 * SUBSCRIBE failed, it subscribes every channel again and then tells those users' listeners to
 * resync, since events published meanwhile passed this instance by (pub/sub has no replay).
 * A user subscribing while Redis is away is registered at once and subscribed once it returns.
 */
export function createRedisEventSubscriber(
  connection: Redis,
  channels: RedisBusChannels,
  onError: (error: unknown) => void,
): RedisEventSubscriber {
  const registry = new ListenerRegistry();
  /** Users whose channel Redis confirmed on the current connection. */
  const confirmed = new Set<string>();
  /** The SUBSCRIBE in flight per user; a newer one replaces it. */
  const inFlight = new Map<string, Promise<boolean>>();
  let everyoneConfirmed = false;
  let retrying: NodeJS.Timeout | undefined;
  let closed = false;

  const reportUnlessOffline = (error: unknown) => {
    if (connection.status === 'ready') onError(error);
  };

  const subscribeOne = (userId: string): Promise<boolean> => {
    if (confirmed.has(userId)) return Promise.resolve(true);
    const current = inFlight.get(userId);
    if (current !== undefined) return current;
    const attempt: Promise<boolean> = connection.subscribe(channels.ofUser(userId)).then(
      () => {
        const current = inFlight.get(userId) === attempt;
        if (current && registry.has(userId)) confirmed.add(userId);
        return current;
      },
      (error: unknown) => {
        reportUnlessOffline(error);
        return false;
      },
    );
    inFlight.set(userId, attempt);
    void attempt.finally(() => {
      if (inFlight.get(userId) === attempt) inFlight.delete(userId);
    });
    return attempt;
  };

  /** Subscribes every channel not confirmed yet, then tells those users to resync. */
  const resubscribeOnce = async (): Promise<void> => {
    const userIds = registry.userIds().filter((userId) => !confirmed.has(userId) && !inFlight.has(userId));
    if (userIds.length === 0 && everyoneConfirmed) return;
    try {
      await connection.subscribe(channels.everyone, ...userIds.map((userId) => channels.ofUser(userId)));
    } catch (error) {
      reportUnlessOffline(error);
      scheduleRetry();
      return;
    }
    everyoneConfirmed = true;
    const resumed = userIds.filter((userId) => registry.has(userId));
    for (const userId of resumed) confirmed.add(userId);
    registry.resync({ reason: 'subscription_interrupted' }, onError, resumed);
  };

  let resubscribing: Promise<void> | undefined;
  const resubscribe = (): Promise<void> => {
    resubscribing ??= resubscribeOnce().finally(() => {
      resubscribing = undefined;
    });
    return resubscribing;
  };

  function scheduleRetry(): void {
    if (closed || retrying !== undefined || connection.status !== 'ready') return;
    retrying = setTimeout(() => {
      retrying = undefined;
      void resubscribe();
    }, retryMs);
    retrying.unref();
  }

  connection.on('close', () => {
    confirmed.clear();
    everyoneConfirmed = false;
  });
  connection.on('ready', () => {
    if (!closed) void resubscribe();
  });
  connection.on('message', (channel: string, text: string) => {
    try {
      const message = JSON.parse(text) as RedisBusMessage;
      if (!('resync' in message)) return registry.deliver(message, onError);
      const signal = { reason: message.resync };
      if (channel === channels.everyone) registry.resync(signal, onError);
      else if (message.userId !== undefined) registry.resync(signal, onError, [message.userId]);
    } catch (error) {
      onError(error);
    }
  });

  return {
    async start() {
      await connection.subscribe(channels.everyone);
      everyoneConfirmed = true;
    },
    async subscribe(userId, listener, onResync) {
      registry.add(userId, listener, onResync);
      // Not subscribed yet (Redis away or slow): registered anyway; `resubscribe` follows up.
      if (!(await subscribeOne(userId))) scheduleRetry();
      let active = true;
      return {
        async unsubscribe() {
          if (!active) return;
          active = false;
          if (!registry.remove(userId, listener)) return;
          confirmed.delete(userId);
          inFlight.delete(userId);
          // Nothing more reaches the listener; a channel left subscribed while Redis is down is
          // not subscribed again when it returns.
          if (!closed && connection.status === 'ready')
            await connection.unsubscribe(channels.ofUser(userId)).catch(onError);
        },
      };
    },
    clear() {
      closed = true;
      clearTimeout(retrying);
      registry.clear();
    },
  };
}
