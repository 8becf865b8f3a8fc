import type { Redis } from 'ioredis';
import { loadDriver } from '../drivers.js';
import type { EventDelivery } from '../events.js';
import type { ResyncReason } from '../ports/event-bus.js';
import { EventBacklog, type LostUsers } from './event-backlog.js';
import type { ResolvedRedisEventBusOptions } from './redis-event-bus-options.js';

/** What travels on a user's channel (a delivery or a resync of that user) or the resync channel (no `userId`). */
export type RedisBusMessage = EventDelivery | { resync: ResyncReason; userId?: string };

/** The Redis channels of a bus. */
export interface RedisBusChannels {
  /** The channel of one user's deliveries and resync signals. */
  ofUser(userId: string): string;
  /** The channel telling every instance to resync all its listeners. */
  everyone: string;
}

/** The publishing half of the Redis event bus. */
export interface RedisEventPublisher {
  /** Keeps the deliveries and hands them to Redis in the background. */
  accept(deliveries: readonly EventDelivery[]): void;
  /** Tries, for at most `timeoutMs`, to hand what is kept to Redis, then stops. */
  close(timeoutMs: number): Promise<void>;
}

const batchSize = 500;
const retryMs = 1000;

/**
 * Publishes deliveries in order from a bounded {@link EventBacklog}: at once while Redis answers,
 * after `reconnectSettleMs` once the connection comes back. Deliveries past the bound are
 * dropped and their users get a `resync` message (everyone's, on the resync channel, when there
 * are too many users to list). A delivery Redis refuses is reported to `onError` and treated alike.
 */
export function createRedisEventPublisher(
  connection: Redis,
  channels: RedisBusChannels,
  options: ResolvedRedisEventBusOptions,
  onError: (error: unknown) => void,
): RedisEventPublisher {
  const backlog = new EventBacklog({
    maxEvents: options.backlogMaxEvents,
    maxAgeMs: options.backlogMaxSeconds * 1000,
  });
  let draining: Promise<void> | undefined;
  let settling: NodeJS.Timeout | undefined;
  let retrying: NodeJS.Timeout | undefined;
  let interrupted = false;
  let closed = false;

  const sendResync = async (users: LostUsers): Promise<void> => {
    const message = (userId?: string): string =>
      JSON.stringify({ resync: 'events_dropped', ...(userId ? { userId } : {}) } satisfies RedisBusMessage);
    const pipeline = connection.pipeline();
    if (users.everyone) pipeline.publish(channels.everyone, message());
    else for (const userId of users.userIds) pipeline.publish(channels.ofUser(userId), message(userId));
    const failure = ((await pipeline.exec()) ?? []).find(([error]) => error !== null)?.[0];
    if (failure) throw failure;
  };

  /** Publishes one batch; returns false when the connection failed and the rest must wait. */
  const sendBatch = async (): Promise<boolean> => {
    const taken = backlog.take(batchSize);
    const pipeline = connection.pipeline();
    for (const delivery of taken.deliveries)
      pipeline.publish(channels.ofUser(delivery.userId), JSON.stringify(delivery));
    let results: [error: Error | null, result: unknown][];
    try {
      results = (await pipeline.exec()) ?? [];
    } catch (error) {
      backlog.putBack(taken, 0);
      throw error;
    }
    for (const [index, [error]] of results.entries()) {
      if (error === null) continue;
      if (!(error instanceof loadDriver<typeof import('ioredis')>('ioredis').ReplyError)) {
        // The connection failed: what Redis did not confirm is kept (it may arrive twice).
        backlog.putBack(taken, index);
        return false;
      }
      onError(error);
      const delivery = taken.deliveries[index];
      if (delivery) backlog.markLost(delivery.userId);
    }
    return true;
  };

  const drainOnce = async (): Promise<void> => {
    while (connection.status === 'ready' && settling === undefined) {
      backlog.expire();
      if (backlog.hasLostUsers) {
        const users = backlog.takeLostUsers();
        try {
          await sendResync(users);
        } catch (error) {
          backlog.restoreLostUsers(users);
          onError(error);
          return scheduleRetry();
        }
      }
      if (backlog.size === 0) return;
      if (!(await sendBatch())) return scheduleRetry();
    }
  };

  const drain = (): Promise<void> => {
    draining ??= drainOnce()
      .catch((error: unknown) => {
        onError(error);
        scheduleRetry();
      })
      .finally(() => {
        draining = undefined;
        // Deliveries accepted while the last batch was in flight.
        if (
          !closed &&
          (backlog.size > 0 || backlog.hasLostUsers) &&
          connection.status === 'ready' &&
          settling === undefined &&
          retrying === undefined
        )
          void drain();
      });
    return draining;
  };

  function scheduleRetry(): void {
    if (closed || retrying !== undefined) return;
    retrying = setTimeout(() => {
      retrying = undefined;
      void drain();
    }, retryMs);
    retrying.unref();
  }

  connection.on('close', () => {
    interrupted = true;
  });
  connection.on('ready', () => {
    if (!interrupted) return void drain();
    interrupted = false;
    clearTimeout(settling);
    settling = setTimeout(() => {
      settling = undefined;
      void drain();
    }, options.reconnectSettleMs);
    settling.unref();
  });

  return {
    accept(deliveries) {
      if (deliveries.length === 0) return;
      backlog.push(deliveries);
      void drain();
    },
    async close(timeoutMs) {
      closed = true;
      clearTimeout(retrying);
      if (settling !== undefined) {
        clearTimeout(settling);
        settling = undefined;
      }
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([drain(), timeout]);
      clearTimeout(timer);
    },
  };
}
