import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ApiNodePresence, startApiNodePresence } from '../../src/meetings/media/api-node-presence.js';
import { clusterKeys } from '../../src/meetings/media/cluster-keys.js';

const redisUrl = `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/11`;
const logger = pino({ level: 'silent' });
const heartbeatMs = 100;

/** API-node presences on one Redis prefix of their own, closed after each test. */
function presences() {
  const prefix = `collab-test:${randomUUID()}:`;
  const keys = clusterKeys(prefix);
  const connections: Redis[] = [];
  const started: ApiNodePresence[] = [];
  const lost: string[] = [];
  let fenced = 0;
  return {
    keys,
    lost,
    fenced: () => fenced,
    start(nodeId: string, graceMs = 0) {
      const redis = new Redis(redisUrl);
      connections.push(redis);
      const presence = startApiNodePresence({
        redis,
        keys,
        nodeId,
        heartbeatMs,
        heartbeatTtlMs: heartbeatMs * 5,
        graceMs,
        logger,
        sessionLost: async (userId, queueId) => {
          lost.push(`${userId} ${queueId}`);
        },
        fenced: () => {
          fenced += 1;
        },
      });
      started.push(presence);
      return presence;
    },
    async close() {
      await Promise.all(started.map((presence) => presence.close()));
      const redis = new Redis(redisUrl);
      const left = await redis.keys(`${prefix}*`);
      if (left.length > 0) await redis.del(...left);
      redis.disconnect();
      for (const connection of connections) connection.disconnect();
    },
  };
}

let current: ReturnType<typeof presences> | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe('API-node presence', () => {
  it('a node that finds it was taken for dead fences itself and refuses joins from its closed sessions', async () => {
    current = presences();
    const redis = new Redis(redisUrl);
    const presence = current.start('api-a');
    presence.sessionOpened('alice', 'queue-1');
    await vi.waitFor(async () => expect(await redis.exists(current?.keys.apiNode('api-a') ?? '')).toBe(1));
    await redis.set(current.keys.apiNodeBuried('api-a'), 'api-b');
    await vi.waitFor(() => expect(current?.fenced()).toBe(1));
    expect(presence.fencings).toBe(1);
    expect(() => presence.assertSessionOpen('alice', 'queue-1')).toThrow(/closed when this node was fenced/);
    expect(() => presence.assertSessionOpen('alice', 'queue-2')).not.toThrow();
    expect(await redis.exists(current.keys.apiNodeBuried('api-a'))).toBe(0);
    expect(await redis.smembers(current.keys.apiNodeQueues('api-a'))).toEqual([]);
    // Work that began before the fencing may not act after it.
    const scoped = presence.scope(async () => {
      // The sockets close only once this work settled; the fencing itself has begun.
      await vi.waitFor(() => expect(presence.fencings).toBe(2));
      expect(current?.fenced()).toBe(1);
      presence.assertCurrent();
    });
    await redis.set(current.keys.apiNodeBuried('api-a'), 'api-b');
    await expect(scoped).rejects.toMatchObject({ code: 'dependency_unavailable' });
    await vi.waitFor(() => expect(current?.fenced()).toBe(2));
    await expect(presence.scope(async () => presence.assertCurrent())).resolves.toBeUndefined();
    redis.disconnect();
  });

  it('a node whose registration Redis lost records its sessions again', async () => {
    current = presences();
    const redis = new Redis(redisUrl);
    const presence = current.start('api-a');
    presence.sessionOpened('alice', 'queue-1');
    presence.sessionOpened('bob', 'queue-2');
    await vi.waitFor(async () =>
      expect(await redis.scard(current?.keys.apiNodeQueues('api-a') ?? '')).toBe(2),
    );
    await redis.del(
      current.keys.apiNode('api-a'),
      current.keys.apiNodeQueues('api-a'),
      current.keys.apiNodes,
    );
    await vi.waitFor(async () => {
      expect(await redis.smembers(current?.keys.apiNodes ?? '')).toEqual(['api-a']);
      expect((await redis.smembers(current?.keys.apiNodeQueues('api-a') ?? '')).sort()).toEqual([
        'alice queue-1',
        'bob queue-2',
      ]);
    });
    redis.disconnect();
  });

  it('ends the sessions of a dead node once the grace after connecting to Redis has passed', async () => {
    current = presences();
    const redis = new Redis(redisUrl);
    // A node that registered with a session and stopped (its key expired).
    await redis.sadd(current.keys.apiNodes, 'api-dead');
    await redis.sadd(current.keys.apiNodeQueues('api-dead'), 'carol queue-3');
    current.start('api-a', 1000);
    const startedAt = Date.now();
    await vi.waitFor(() => expect(current?.lost).toEqual(['carol queue-3']), { timeout: 5000 });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
    expect(await redis.sismember(current.keys.apiNodes, 'api-dead')).toBe(0);
    redis.disconnect();
  });
});
