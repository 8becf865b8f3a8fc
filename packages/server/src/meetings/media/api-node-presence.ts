import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ClusterKeys } from './cluster-keys.js';

/** Options of {@link startApiNodePresence}. */
export interface ApiNodePresenceOptions {
  redis: Redis;
  keys: ClusterKeys;
  nodeId: string;
  heartbeatMs: number;
  heartbeatTtlMs: number;
  logger: Logger;
  /** Ends what a session of a dead API node left (its meeting participations). */
  sessionLost(userId: string, queueId: string): Promise<void>;
}

/** An API node's presence in the cluster. */
export interface ApiNodePresence {
  /** Records an `/events` session connected to this node. */
  sessionOpened(userId: string, queueId: string): void;
  /** Forgets a session that closed here. */
  sessionClosed(userId: string, queueId: string): void;
  /**
   * Stops the heartbeat and drops the registration, keeping the sessions: the next live node to look
   * ends them, as it would after a crash.
   */
  close(): Promise<void>;
}

/**
 * Registers this API node in Redis with a heartbeat that expires, with the `/events` sessions
 * connected to it. An API node that dies cannot say that its sessions are gone: the first live node
 * to see its registration expired ends each of them (`sessionLost`), as if its socket had closed.
 */
export function startApiNodePresence(options: ApiNodePresenceOptions): ApiNodePresence {
  const { redis, keys, nodeId, logger } = options;
  const queues = keys.apiNodeQueues(nodeId);
  const warn = (what: string) => (error: unknown) => logger.warn({ err: error }, what);
  let closing = false;

  const heartbeat = () =>
    redis
      .multi()
      .set(keys.apiNode(nodeId), new Date().toISOString(), 'PX', options.heartbeatTtlMs)
      .sadd(keys.apiNodes, nodeId)
      .exec();

  const bury = async (deadId: string) => {
    const won = await redis.set(keys.apiNodeBuried(deadId), nodeId, 'EX', 300, 'NX');
    if (won !== 'OK') return;
    const sessions = await redis.smembers(keys.apiNodeQueues(deadId));
    logger.error({ nodeId: deadId, sessions: sessions.length }, 'an API node stopped; ending its sessions');
    for (const session of sessions) {
      const [userId, queueId] = session.split(' ');
      if (userId && queueId)
        await options.sessionLost(userId, queueId).catch(warn('could not end a lost session'));
    }
    await redis.multi().del(keys.apiNodeQueues(deadId)).srem(keys.apiNodes, deadId).exec();
  };

  const watch = async () => {
    await heartbeat();
    for (const otherId of await redis.smembers(keys.apiNodes)) {
      if (otherId === nodeId) continue;
      if ((await redis.exists(keys.apiNode(otherId))) === 0) await bury(otherId);
    }
  };
  void redis.del(keys.apiNodeBuried(nodeId)).then(heartbeat).catch(warn('could not register the API node'));
  const timer = setInterval(() => {
    if (!closing) watch().catch(warn('could not renew the API node registration'));
  }, options.heartbeatMs);

  return {
    sessionOpened(userId, queueId) {
      redis.sadd(queues, `${userId} ${queueId}`).catch(warn('could not record a session'));
    },
    sessionClosed(userId, queueId) {
      redis.srem(queues, `${userId} ${queueId}`).catch(warn('could not forget a session'));
    },
    async close() {
      closing = true;
      clearInterval(timer);
      await redis.del(keys.apiNode(nodeId)).catch(warn('could not unregister the API node'));
    },
  };
}
