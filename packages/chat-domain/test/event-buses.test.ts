import { randomUUID } from 'node:crypto';
import { createMemoryEventBus, openRedisEventBus } from '@collab-suite/chat-domain';
import { describeEventBusConformance, waitUntil } from '@collab-suite/chat-domain/testing';
import { describe, expect, it } from 'vitest';
import { startPrivateRedis } from '../src/testing/private-redis.js';

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

  it('unsubscribes without failing while Redis is down, and reports the failure to onError', async () => {
    const redis = await startPrivateRedis();
    const reported: unknown[] = [];
    const bus = await openRedisEventBus({ url: redis.url, onError: (error) => reported.push(error) });
    try {
      const subscription = await bus.subscribe(randomUUID(), () => {});
      await redis.stop();
      await expect(subscription.unsubscribe()).resolves.toBeUndefined();
      expect(reported.some((error) => /max retries per request/i.test(String(error)))).toBe(true);
    } finally {
      await bus.close();
    }
  });
});
