import { randomUUID } from 'node:crypto';
import { type PrivateRedis, startPrivateRedis } from '@collab-suite/chat-domain/testing';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ApiNodePresence, startApiNodePresence } from '../../src/meetings/media/api-node-presence.js';
import { clusterKeys } from '../../src/meetings/media/cluster-keys.js';

const sharedRedisUrl = `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/11`;
const heartbeatMs = 100;

/**
 * API-node presences on one Redis prefix of their own, closed after each test; on the shared Redis
 * unless given the URL of a private one. Their connections fail a command after one reconnection
 * attempt, as the server's do, so that a write during an outage fails rather than waits.
 */
function presences(redisUrl = sharedRedisUrl, options: { heartbeatTtlMs?: number } = {}) {
  const prefix = `collab-test:${randomUUID()}:`;
  const keys = clusterKeys(prefix);
  const connections: Redis[] = [];
  const started: ApiNodePresence[] = [];
  const lost: string[] = [];
  const warnings: string[] = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => warnings.push((JSON.parse(line) as { msg: string }).msg) },
  );
  let fenced = 0;
  const connect = (redisOptions: { maxRetriesPerRequest?: number; commandTimeout?: number } = {}) => {
    const redis = new Redis(redisUrl, redisOptions);
    redis.on('error', () => {});
    connections.push(redis);
    return redis;
  };
  return {
    keys,
    lost,
    warnings,
    fenced: () => fenced,
    /** A plain client for the test's own reads, waiting through outages. */
    client: () => connect(),
    start(nodeId: string, graceMs = 0) {
      const presence = startApiNodePresence({
        redis: connect({ maxRetriesPerRequest: 1, commandTimeout: 2000 }),
        keys,
        nodeId,
        heartbeatMs,
        heartbeatTtlMs: options.heartbeatTtlMs ?? heartbeatMs * 5,
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
      if (redisUrl === sharedRedisUrl) {
        const redis = new Redis(sharedRedisUrl);
        const left = await redis.keys(`${prefix}*`);
        if (left.length > 0) await redis.del(...left);
        redis.disconnect();
      }
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
    const redis = new Redis(sharedRedisUrl);
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
    const redis = new Redis(sharedRedisUrl);
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
    const redis = new Redis(sharedRedisUrl);
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

describe('API-node presence across Redis outages (a private Redis)', () => {
  let privateRedis: PrivateRedis | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
    await privateRedis?.stop();
    privateRedis = undefined;
  });

  it('records a session opened, and forgets one closed, while Redis was away once it is back with its data', async () => {
    privateRedis = await startPrivateRedis({ appendOnly: true });
    // The registration outlives the outage: nothing tells the node that Redis lost anything.
    current = presences(privateRedis.url, { heartbeatTtlMs: 60_000 });
    const redis = current.client();
    const queues = current.keys.apiNodeQueues('api-a');
    const presence = current.start('api-a');
    presence.sessionOpened('alice', 'queue-1');
    // The node registers asynchronously: a session may be recorded before, and Redis must not stop
    // in between (it would then rightly register again with its sessions).
    await vi.waitFor(async () => {
      expect(await redis.smembers(queues)).toEqual(['alice queue-1']);
      expect(await redis.sismember(current?.keys.apiNodes ?? '', 'api-a')).toBe(1);
    });

    const warnedBefore = current.warnings.length;
    await privateRedis.stop();
    presence.sessionOpened('bob', 'queue-2');
    presence.sessionClosed('alice', 'queue-1');
    await vi.waitFor(
      () => {
        expect(current?.warnings.some((message) => message.startsWith('could not record a session'))).toBe(
          true,
        );
        expect(current?.warnings.some((message) => message.startsWith('could not forget a session'))).toBe(
          true,
        );
      },
      { timeout: 10_000 },
    );
    await privateRedis.start();

    await vi.waitFor(async () => expect(await redis.smembers(queues)).toEqual(['bob queue-2']), {
      timeout: 10_000,
    });
    expect(await redis.sismember(current.keys.apiNodes, 'api-a')).toBe(1);
    expect(current.warnings.slice(warnedBefore)).not.toContain(
      'registered again; recording the sessions connected here',
    );
  }, 30_000);

  it('puts back only the sessions whose write failed: one another node took over meanwhile stays out', async () => {
    privateRedis = await startPrivateRedis({ appendOnly: true });
    current = presences(privateRedis.url, { heartbeatTtlMs: 60_000 });
    const redis = current.client();
    const { keys } = current;
    const nodeA = current.start('api-a');
    const nodeB = current.start('api-b');
    nodeA.sessionOpened('alice', 'queue-1');
    await vi.waitFor(async () => {
      expect((await redis.smembers(keys.apiNodes)).sort()).toEqual(['api-a', 'api-b']);
      expect(await redis.smembers(keys.apiNodeQueues('api-a'))).toEqual(['alice queue-1']);
    });
    // Alice resumed on B; A keeps her session through its grace.
    await expect(nodeB.claimSession('alice', 'queue-1')).resolves.toBe(true);

    await privateRedis.stop();
    nodeA.sessionOpened('bob', 'queue-2');
    await vi.waitFor(
      () =>
        expect(current?.warnings.some((message) => message.startsWith('could not record a session'))).toBe(
          true,
        ),
      { timeout: 10_000 },
    );
    await privateRedis.start();

    await vi.waitFor(
      async () => expect(await redis.smembers(keys.apiNodeQueues('api-a'))).toEqual(['bob queue-2']),
      { timeout: 10_000 },
    );
    expect(await redis.smembers(keys.apiNodeQueues('api-b'))).toEqual(['alice queue-1']);
  }, 30_000);

  it('after Redis restarted empty, a session another node took over ends up owned by that node alone', async () => {
    privateRedis = await startPrivateRedis();
    current = presences(privateRedis.url);
    const redis = current.client();
    const { keys } = current;
    const graceMs = 5000;
    const nodeA = current.start('api-a', graceMs);
    const nodeB = current.start('api-b', graceMs);
    nodeA.sessionOpened('alice', 'queue-1');
    nodeA.sessionOpened('bob', 'queue-2');
    await vi.waitFor(async () => {
      expect((await redis.smembers(keys.apiNodes)).sort()).toEqual(['api-a', 'api-b']);
      expect(await redis.scard(keys.apiNodeQueues('api-a'))).toBe(2);
    });
    // Alice's client reconnected to B, while A keeps her session through its grace. Bob's did too,
    // A learned it, and Bob left B since: nobody keeps his session.
    await expect(nodeB.claimSession('alice', 'queue-1')).resolves.toBe(true);
    await expect(nodeB.claimSession('bob', 'queue-2')).resolves.toBe(true);
    nodeA.sessionMoved('bob', 'queue-2');
    nodeB.sessionClosed('bob', 'queue-2');
    await vi.waitFor(async () => {
      expect(await redis.smembers(keys.apiNodeQueues('api-a'))).toEqual([]);
      expect(await redis.smembers(keys.apiNodeQueues('api-b'))).toEqual(['alice queue-1']);
    });
    expect(await redis.get(keys.queueOwner('queue-1'))).toMatch(/^api-b( \d+)?$/);

    await privateRedis.restart();
    // Both register again with every session they keep, so Alice's is in both sets for a while; B
    // says again that it took hers over.
    await vi.waitFor(
      async () => {
        expect(await redis.smembers(keys.apiNodeQueues('api-a'))).toEqual(['alice queue-1']);
        expect(await redis.smembers(keys.apiNodeQueues('api-b'))).toEqual(['alice queue-1']);
        expect(await redis.get(keys.queueOwner('queue-1'))).toMatch(/^api-b( \d+)?$/);
      },
      { timeout: 10_000 },
    );
    expect(await redis.exists(keys.queueOwner('queue-2'))).toBe(0);
    // Until every node had the time to register again, A cannot tell that Alice's session moved.
    await expect(nodeA.ownsSession('queue-1')).rejects.toMatchObject({ code: 'dependency_unavailable' });
    await vi.waitFor(async () => expect(await nodeA.ownsSession('queue-1')).toBe(false), {
      timeout: graceMs * 3,
      interval: 200,
    });
    nodeA.sessionMoved('alice', 'queue-1');
    await vi.waitFor(async () => expect(await redis.smembers(keys.apiNodeQueues('api-a'))).toEqual([]));
    expect(await redis.smembers(keys.apiNodeQueues('api-b'))).toEqual(['alice queue-1']);
    await expect(nodeB.ownsSession('queue-1')).resolves.toBe(true);
    expect(current.lost).toEqual([]);
  }, 60_000);
});
