import { randomUUID } from 'node:crypto';
import { createMemoryEventBus, openRedisEventBus } from '@collab-suite/chat-domain';
import {
  describeEventBusConformance,
  eventually,
  startPrivateRedis,
  waitUntil,
} from '@collab-suite/chat-domain/testing';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';

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
    const busy = new Redis(redis.url);
    try {
      // A script that spins for a second: the single-threaded server answers nobody meanwhile.
      const spinning = busy.eval(
        `local start = redis.call('TIME')
         while true do
           local now = redis.call('TIME')
           if (now[1] - start[1]) * 1000000 + (now[2] - start[2]) > 1000000 then return 1 end
         end`,
        0,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await bus.checkHealth()).toEqual({
        ready: false,
        reason: 'Redis did not answer PING within 200 ms',
      });
      await spinning;
      expect(await bus.checkHealth()).toEqual({ ready: true });
    } finally {
      busy.disconnect();
      await bus.close();
      await redis.stop();
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
