import { randomUUID } from 'node:crypto';
import { ChatError, createKeyedLock, type KeyedLock } from '@collab-suite/chat-domain';
import type { Redis } from 'ioredis';
import { type ClusterKeys, DELETE_IF_EQUAL, EXTEND_IF_EQUAL } from './cluster-keys.js';

/** Options of {@link createRedisKeyedLock}. */
export interface RedisKeyedLockOptions {
  /** A lock whose holder stopped renewing it (a dead API node) is free after this long. @default 15000 */
  leaseMs?: number;
  /** Longest wait for a lock before the call fails with `dependency_failed`. @default 30000 */
  maxWaitMs?: number;
  /** Told when a held lock could not be renewed because another holder has it, or nobody. */
  onLost?(key: string): void;
}

/**
 * A {@link KeyedLock} across processes: `SET key token NX PX lease`, renewed while the work runs and
 * deleted by its token afterwards, so a lock left by a dead process frees itself after one lease.
 * Calls from this process queue in memory first, so only one of them polls Redis at a time.
 */
export function createRedisKeyedLock(
  redis: Redis,
  keys: ClusterKeys,
  options: RedisKeyedLockOptions = {},
): KeyedLock {
  const leaseMs = options.leaseMs ?? 15_000;
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const local = createKeyedLock();

  const acquire = async (key: string, token: string) => {
    const started = Date.now();
    let pause = 5;
    for (;;) {
      if ((await redis.set(keys.meetingLock(key), token, 'PX', leaseMs, 'NX')) === 'OK') return;
      if (Date.now() - started > maxWaitMs) {
        throw new ChatError('dependency_failed', `expected to lock meeting ${key} within ${maxWaitMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 100);
    }
  };

  return {
    run: (key, task) =>
      local.run(key, async () => {
        const token = randomUUID();
        await acquire(key, token);
        const renew = setInterval(() => {
          redis
            .eval(EXTEND_IF_EQUAL, 1, keys.meetingLock(key), token, String(leaseMs))
            .then((extended) => {
              // Lost (expired while this process was frozen, or Redis lost it): the work's writes
              // carry a fencing token, which the database refuses once another holder claimed one.
              if (extended === 0) options.onLost?.(key);
            })
            .catch(() => {});
        }, leaseMs / 3);
        try {
          return await task();
        } finally {
          clearInterval(renew);
          await redis.eval(DELETE_IF_EQUAL, 1, keys.meetingLock(key), token).catch(() => {});
        }
      }),
  };
}
