import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ClusterKeys } from './cluster-keys.js';
import { reassertQueueOwner } from './queue-owner.js';

/** Options of {@link createApiNodeSessions}. */
export interface ApiNodeSessionsOptions {
  redis: Redis;
  keys: ClusterKeys;
  nodeId: string;
  logger: Logger;
  /** How long the owner of a session said again after Redis lost it is remembered. */
  queueOwnerTtlMs: number;
}

/**
 * The `/events` sessions kept by an API node (members `<userId> <queueId>`), and its set of them in
 * Redis, which a write that failed while Redis was away leaves out of date until {@link record}.
 */
export interface ApiNodeSessions {
  readonly size: number;
  /** Keeps a session that opened here and records it in Redis. */
  opened(member: string): void;
  /** Keeps a session this node took over at `claimedAt` (Redis's clock), already in its set. */
  claimed(member: string, claimedAt: number): void;
  /** Forgets a session that closed or moved to another node, and removes it from Redis. */
  forget(member: string, failure: string): void;
  /** Forgets every session (this node was fenced); `removed` settles once Redis forgot them too. */
  clear(): { ended: string[]; removed: Promise<void> };
  /** Redis lost this node's registration: {@link record} records every session again. */
  registrationLost(): void;
  /**
   * Brings the set in Redis in line with the sessions kept here, in one transaction.
   * @throws the Redis error when it failed: the next call tries again
   */
  record(): Promise<void>;
}

/** The queue id of a set member `<userId> <queueId>`. */
function queueIdOf(member: string): string {
  return member.slice(member.indexOf(' ') + 1);
}

/**
 * Keeps an API node's sessions and its set of them in Redis. A session recorded or removed while
 * Redis was away is remembered and written at the next {@link ApiNodeSessions.record}, so a Redis
 * that comes back with its data (a short outage, a restart from its append-only file) still learns
 * it; one that lost the registration gets every session again, with the owners of those this node
 * took over (the latest claim of each wins).
 */
export function createApiNodeSessions(options: ApiNodeSessionsOptions): ApiNodeSessions {
  const { redis, keys, nodeId, logger } = options;
  const queues = keys.apiNodeQueues(nodeId);
  const sessions = new Set<string>();
  /** Sessions this node took over, with the time of the claim in Redis's clock. */
  const claims = new Map<string, number>();
  /** Sessions kept here whose recording in Redis failed. */
  const unrecorded = new Set<string>();
  /** Sessions gone from here whose removal from Redis failed. */
  const unforgotten = new Set<string>();
  let everythingLost = false;

  const removeFromRedis = (members: string[]) =>
    redis.srem(queues, ...members).then(
      () => undefined,
      (error: unknown) => {
        for (const member of members) if (!sessions.has(member)) unforgotten.add(member);
        throw error;
      },
    );

  return {
    get size() {
      return sessions.size;
    },
    opened(member) {
      sessions.add(member);
      unforgotten.delete(member);
      redis.sadd(queues, member).catch((error: unknown) => {
        if (sessions.has(member)) unrecorded.add(member);
        logger.warn({ err: error }, 'could not record a session: recording it at the next heartbeat');
      });
    },
    claimed(member, claimedAt) {
      sessions.add(member);
      claims.set(member, claimedAt);
      unrecorded.delete(member);
      unforgotten.delete(member);
    },
    forget(member, failure) {
      sessions.delete(member);
      claims.delete(member);
      unrecorded.delete(member);
      removeFromRedis([member]).catch((error: unknown) =>
        logger.warn({ err: error }, `${failure}: forgetting it at the next heartbeat`),
      );
    },
    clear() {
      const ended = [...sessions];
      sessions.clear();
      claims.clear();
      unrecorded.clear();
      return { ended, removed: ended.length > 0 ? removeFromRedis(ended) : Promise.resolve() };
    },
    registrationLost() {
      everythingLost = true;
    },
    async record() {
      // Only the sessions whose write failed are added back unless Redis lost everything: one that
      // another node took over meanwhile stays out of this node's set.
      const everything = everythingLost;
      const adding = [...(everything ? sessions : unrecorded)].filter((member) => sessions.has(member));
      const removing = [...unforgotten].filter((member) => !sessions.has(member));
      const reasserting = everything ? [...claims] : [];
      everythingLost = false;
      unrecorded.clear();
      unforgotten.clear();
      if (adding.length === 0 && removing.length === 0 && reasserting.length === 0) return;
      if (everything)
        logger.warn({ sessions: adding.length }, 'registered again; recording the sessions connected here');
      const update = redis.multi();
      if (adding.length > 0) update.sadd(queues, ...adding);
      if (removing.length > 0) update.srem(queues, ...removing);
      for (const [member, claimedAt] of reasserting) {
        const ownerKey = keys.queueOwner(queueIdOf(member));
        reassertQueueOwner(update, ownerKey, nodeId, claimedAt, options.queueOwnerTtlMs);
      }
      try {
        const results = await update.exec();
        if (results === null) throw new Error('the transaction recording the sessions was discarded');
        for (const [error] of results) if (error) throw error;
      } catch (error) {
        if (everything) everythingLost = true;
        for (const member of adding) if (sessions.has(member)) unrecorded.add(member);
        for (const member of removing) if (!sessions.has(member)) unforgotten.add(member);
        throw error;
      }
    },
  };
}
