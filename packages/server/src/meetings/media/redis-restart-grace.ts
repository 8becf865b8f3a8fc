import type { Redis } from 'ioredis';

/** When a node may judge others dead from their registrations in Redis. */
export interface RestartGrace {
  /** False for `graceMs` after the connection (re)connected: registrations may be missing then. */
  mayJudge(): boolean;
}

/**
 * Holds back judgements of death after the connection to Redis (re)connects. A Redis restarted
 * from its append-only file comes back with every heartbeat key expired while the sets of nodes
 * remain, and an empty one with none at all: the live nodes re-register at their next heartbeat,
 * so nobody is taken for dead before a few heartbeats have passed. A node that really died is
 * still found, one grace later.
 */
export function createRestartGrace(redis: Redis, graceMs: number): RestartGrace {
  let judgeAfter = Date.now() + graceMs;
  redis.on('ready', () => {
    judgeAfter = Date.now() + graceMs;
  });
  return { mayJudge: () => Date.now() >= judgeAfter };
}
