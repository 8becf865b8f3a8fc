import { randomUUID } from 'node:crypto';
import { createMemoryEventBus } from '@collab-suite/chat-domain';
import { openRedisEventBus } from '@collab-suite/chat-domain/redis';
import { eventually, startPrivateRedis, waitUntil } from '@collab-suite/chat-domain/testing';
import { describeEventBusConformance } from '@collab-suite/chat-domain/testing/vitest';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const channelPrefix = `collab-test-chat-${randomUUID()}:`;

describeEventBusConformance('in-process', async () => {
  const bus = createMemoryEventBus();
  return { publisher: bus, subscriber: bus };
});

describeEventBusConformance('redis', async () => ({
  publisher: await openRedisEventBus({ url: redisUrl, channelPrefix }),
  subscriber: await openRedisEventBus({ url: redisUrl, channelPrefix }),
}));

let outageRedis: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
afterAll(async () => {
  await outageRedis?.stop();
});

describeEventBusConformance(
  'redis across an outage (a private redis-server, killed and started)',
  async () => {
    outageRedis ??= await startPrivateRedis();
    const redis = outageRedis;
    await redis.start();
    return {
      publisher: await openRedisEventBus({ url: redis.url, channelPrefix }),
      subscriber: await openRedisEventBus({ url: redis.url, channelPrefix }),
      outage: { stop: () => redis.stop(), start: () => redis.start() },
    };
  },
);

describe('redis event bus', () => {
  it('fails with dependency_failed when Redis cannot be reached', async () => {
    await expect(
      openRedisEventBus({ url: 'redis://127.0.0.1:1', redisOptions: { retryStrategy: () => null } }),
    ).rejects.toMatchObject({ code: 'dependency_failed' });
  });

  it('stops delivering to a user once the last listener unsubscribed and resumes on a new one', async () => {
    const publisher = await openRedisEventBus({ url: redisUrl, channelPrefix });
    const subscriber = await openRedisEventBus({ url: redisUrl, channelPrefix });
    try {
      const alice = randomUUID();
      const event = { type: 'ROOM_DELETED' as const, roomId: 'r', sentDate: '2024-01-01T00:00:00.000Z' };
      const first: unknown[] = [];
      const subscription = await subscriber.subscribe(alice, (delivery) => first.push(delivery));
      await subscription.unsubscribe();
      const second: unknown[] = [];
      await subscriber.subscribe(alice, (delivery) => second.push(delivery));
      await publisher.publish([{ userId: alice, event }]);
      await waitUntil(() => second.length === 1);
      expect(first).toEqual([]);
    } finally {
      await publisher.close();
      await subscriber.close();
    }
  });

  it('reports not ready with the reason while Redis is down, and ready again once it is back', async () => {
    const redis = await startPrivateRedis();
    const bus = await openRedisEventBus({ url: redis.url, channelPrefix });
    try {
      const alice = randomUUID();
      const received: unknown[] = [];
      await bus.subscribe(alice, (delivery) => received.push(delivery));
      expect(await bus.checkHealth()).toEqual({ ready: true });
      await redis.stop();
      await eventually(async () => {
        const health = await bus.checkHealth();
        expect(health.ready).toBe(false);
        expect(health.reason).toMatch(/connection to Redis is (reconnecting|connecting|connect|close)/);
        expect(health.reason).not.toContain(redis.url);
      });
      await redis.restart();
      await eventually(async () => expect(await bus.checkHealth()).toEqual({ ready: true }));
      const event = { type: 'ROOM_DELETED' as const, roomId: 'r', sentDate: '2024-01-01T00:00:00.000Z' };
      await bus.publish([{ userId: alice, event }]);
      await waitUntil(() => received.length === 1, 5000, 'a delivery after the restart');
    } finally {
      await bus.close();
      await redis.stop();
    }
    expect(await bus.checkHealth()).toEqual({ ready: false, reason: 'the event bus is closed' });
  });

  it('reports not ready when Redis keeps the connections but does not answer within the timeout', async () => {
    const redis = await startPrivateRedis();
    const bus = await openRedisEventBus({ url: redis.url, channelPrefix, healthTimeoutMs: 200 });
    try {
      // Frozen (SIGSTOP): the connections stay up, nothing answers, for as long as this takes.
      redis.pause();
      expect(await bus.checkHealth()).toEqual({
        ready: false,
        reason: 'Redis did not answer PING within 200 ms',
      });
      redis.resume();
      expect(await bus.checkHealth()).toEqual({ ready: true });
    } finally {
      redis.resume();
      await bus.close();
      await redis.stop();
    }
  });

  it('subscribes without waiting past commandTimeoutMs while Redis hangs, then resyncs and delivers once it answers', async () => {
    const redis = await startPrivateRedis();
    const bus = await openRedisEventBus({ url: redis.url, channelPrefix, commandTimeoutMs: 200 });
    try {
      // Frozen (SIGSTOP) until resumed below: the subscription must not wait for it.
      redis.pause();
      const alice = randomUUID();
      const received: unknown[] = [];
      const signals: unknown[] = [];
      await bus.subscribe(
        alice,
        (delivery) => received.push(delivery),
        (signal) => signals.push(signal),
      );
      const event = { type: 'ROOM_DELETED' as const, roomId: 'r', sentDate: '2024-01-01T00:00:00.000Z' };
      await bus.publish([{ userId: alice, event }]);
      redis.resume();
      await waitUntil(() => signals.length > 0, 10_000, 'a resync once subscribed');
      expect(signals).toEqual([{ reason: 'subscription_interrupted' }]);
      await bus.publish([{ userId: alice, event }]);
      await waitUntil(() => received.length >= 1, 10_000, 'a delivery');
    } finally {
      redis.resume();
      await bus.close();
      await redis.stop();
    }
  });

  it('unsubscribes without failing while Redis is down, and does not subscribe the channel again', async () => {
    const redis = await startPrivateRedis();
    const bus = await openRedisEventBus({ url: redis.url, channelPrefix });
    const probe = new Redis(redis.url, { lazyConnect: true });
    try {
      const alice = randomUUID();
      const subscription = await bus.subscribe(alice, () => {});
      await redis.stop();
      await expect(subscription.unsubscribe()).resolves.toBeUndefined();
      await redis.start();
      await eventually(async () => expect(await bus.checkHealth()).toEqual({ ready: true }));
      await probe.connect();
      // The resync channel is subscribed again, the user's is not.
      await eventually(async () =>
        expect(
          await probe.pubsub('NUMSUB', `${channelPrefix}resync`, `${channelPrefix}user:${alice}`),
        ).toEqual([`${channelPrefix}resync`, 1, `${channelPrefix}user:${alice}`, 0]),
      );
    } finally {
      probe.disconnect();
      await bus.close();
      await redis.stop();
    }
  });

  it('publishes at once without waiting for Redis and keeps at most backlogMaxEvents, then tells the dropped users to resync', async () => {
    const redis = await startPrivateRedis();
    const publisher = await openRedisEventBus({ url: redis.url, channelPrefix, backlogMaxEvents: 2 });
    const subscriber = await openRedisEventBus({ url: redis.url, channelPrefix });
    try {
      const alice = randomUUID();
      const bob = randomUUID();
      const received: string[] = [];
      const signals: string[] = [];
      const listen = (userId: string, name: string) =>
        subscriber.subscribe(
          userId,
          (item) => received.push(`${name}:${item.event.type === 'ROOM_DELETED' ? item.event.roomId : ''}`),
          (signal) => signals.push(`${name}:${signal.reason}`),
        );
      await listen(alice, 'alice');
      await listen(bob, 'bob');
      await redis.stop();
      const event = (roomId: string) => ({
        type: 'ROOM_DELETED' as const,
        roomId,
        sentDate: '2024-01-01T00:00:00.000Z',
      });
      await publisher.publish([{ userId: alice, event: event('a1') }]);
      await publisher.publish([
        { userId: bob, event: event('b1') },
        { userId: bob, event: event('b2') },
      ]);
      await redis.start();
      await waitUntil(
        () => received.length === 2 && signals.includes('alice:events_dropped'),
        15_000,
        'events',
      );
      expect(received).toEqual(['bob:b1', 'bob:b2']);
      expect(signals).toContain('alice:subscription_interrupted');
      expect(signals).toContain('bob:subscription_interrupted');
      expect(signals).not.toContain('bob:events_dropped');
    } finally {
      await publisher.close();
      await subscriber.close();
      await redis.stop();
    }
  });
});

describe('messages about Redis', () => {
  it('name where Redis is, never its password', async () => {
    const refused = await openRedisEventBus({ url: 'redis://user:planted-password@127.0.0.1:1/3' }).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'dependency_failed' });
    expect(String((refused as Error).message)).toContain('redis://127.0.0.1:1/3');
    expect(String((refused as Error).message)).not.toContain('planted-password');
  });
});
