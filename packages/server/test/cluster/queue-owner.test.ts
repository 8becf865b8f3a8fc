import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { claimQueueOwner, queueOwnerOf, reassertQueueOwner } from '../../src/meetings/media/queue-owner.js';

const redis = new Redis(`${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/11`);
const key = `collab-test:${randomUUID()}:events-queue:q:owner`;
const ttlMs = 60_000;

afterAll(async () => {
  await redis.del(key);
  redis.disconnect();
});

/** Runs one command queued by `queue` in a transaction and returns its reply. */
async function run(queue: (transaction: ReturnType<Redis['multi']>) => unknown): Promise<unknown> {
  const transaction = redis.multi();
  queue(transaction);
  const results = await transaction.exec();
  const [error, reply] = results?.[0] ?? [new Error('discarded'), undefined];
  if (error) throw error;
  return reply;
}

describe('the owner of an /events queue', () => {
  it('a claim records the node with the time of the Redis clock, and an expiry', async () => {
    const [seconds] = await redis.time();
    const claimedAt = Number(await run((transaction) => claimQueueOwner(transaction, key, 'api-b', ttlMs)));
    expect(claimedAt).toBeGreaterThanOrEqual(Number(seconds) * 1000);
    expect(await redis.get(key)).toBe(`api-b ${claimedAt}`);
    expect(await redis.pttl(key)).toBeGreaterThan(ttlMs - 10_000);
  });

  it('a claim said again wins over an absent or older claim, not over a newer one or a bare node id', async () => {
    await redis.del(key);
    expect(await run((transaction) => reassertQueueOwner(transaction, key, 'api-a', 1000, ttlMs))).toBe(1);
    expect(await redis.get(key)).toBe('api-a 1000');
    expect(await redis.pttl(key)).toBeGreaterThan(ttlMs - 10_000);
    // An older claim of another node, said again later, leaves the newer one.
    expect(await run((transaction) => reassertQueueOwner(transaction, key, 'api-b', 999, ttlMs))).toBe(0);
    expect(await run((transaction) => reassertQueueOwner(transaction, key, 'api-b', 1000, ttlMs))).toBe(0);
    expect(await redis.get(key)).toBe('api-a 1000');
    expect(await run((transaction) => reassertQueueOwner(transaction, key, 'api-b', 1001, ttlMs))).toBe(1);
    expect(await redis.get(key)).toBe('api-b 1001');
    // A node of an older version writes no time: it claimed since, so its claim stays.
    await redis.set(key, 'api-c');
    expect(await run((transaction) => reassertQueueOwner(transaction, key, 'api-b', 1002, ttlMs))).toBe(0);
    expect(await redis.get(key)).toBe('api-c');
  });

  it('reads the node id from either form of the value', () => {
    expect(queueOwnerOf('api-b 1732780000000')).toBe('api-b');
    expect(queueOwnerOf('api-b')).toBe('api-b');
    expect(queueOwnerOf(null)).toBeNull();
  });
});
