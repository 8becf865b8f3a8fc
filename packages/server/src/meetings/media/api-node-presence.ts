import { AsyncLocalStorage } from 'node:async_hooks';
import { ChatError } from '@collab-suite/chat-domain';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createApiNodeSessions } from './api-node-sessions.js';
import type { ClusterKeys } from './cluster-keys.js';
import { claimQueueOwner, queueOwnerOf } from './queue-owner.js';
import { createRestartGrace } from './redis-restart-grace.js';

/** Sessions closed by fencing that are remembered, to refuse joins from them. */
const MAX_FENCED_SESSIONS = 10_000;
/** How long a session's owner is remembered after a node took it over: far past any grace. */
const QUEUE_OWNER_TTL_MS = 24 * 60 * 60 * 1000;

/** Options of {@link startApiNodePresence}. */
export interface ApiNodePresenceOptions {
  redis: Redis;
  keys: ClusterKeys;
  nodeId: string;
  heartbeatMs: number;
  heartbeatTtlMs: number;
  /** After Redis (re)connects, other nodes are given this long to register again before any is judged. */
  graceMs: number;
  logger: Logger;
  /** Ends what a session of a dead API node left (its meeting participations). */
  sessionLost(userId: string, queueId: string): Promise<void>;
  /**
   * Told when this node learns that another took it for dead (and ended its sessions): it closes
   * its `/events` sockets, so that their clients reconnect and join again.
   */
  fenced(): void;
}

/** An API node's presence in the cluster. */
export interface ApiNodePresence {
  /** Records an `/events` session connected to this node. */
  sessionOpened(userId: string, queueId: string): void;
  /** Forgets a session that closed here. */
  sessionClosed(userId: string, queueId: string): void;
  /**
   * Takes over a session that a live API node (another, or this one) keeps for `userId`, whose client
   * reconnected here with its queue id: the session moves to this node's sessions, and this node
   * becomes its owner. False when no live node keeps such a session.
   */
  claimSession(userId: string, queueId: string): Promise<boolean>;
  /**
   * Whether this node still owns a session it keeps: false once another node took it over.
   * @throws ChatError `dependency_unavailable` during the grace after Redis (re)connects, when the
   * owners Redis lost may not have been recorded again yet: ask again later.
   */
  ownsSession(queueId: string): Promise<boolean>;
  /** Forgets a session that another node took over (it is in that node's sessions now, not here). */
  sessionMoved(userId: string, queueId: string): void;
  /**
   * Runs `work` (a request) tied to the registration of now: it may not act once this node fenced
   * itself, and the sockets are closed only once such work has settled (so that the meetings left
   * by their closing include whatever it wrote).
   */
  scope<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Refuses a session this node closed when it fenced itself (its meetings were ended).
   * @throws ChatError `invalid_input`
   */
  assertSessionOpen(userId: string, queueId: string): void;
  /**
   * Refuses to act when this node's registration may have expired (its last renewal is older than
   * the expiry less one heartbeat, e.g. after a freeze) or changed since the current `scope` began.
   * @throws ChatError `dependency_unavailable`
   */
  assertCurrent(): void;
  /** Times this node fenced itself after being taken for dead. */
  readonly fencings: number;
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
 * Nobody is judged during a grace after Redis (re)connects; a node that finds its registration gone
 * records its sessions again, with the owners of those it took over, and one that finds it was taken
 * for dead fences itself (`fenced`). A session recorded or forgotten while Redis was away is
 * recorded or forgotten at the first heartbeat that reaches it.
 */
export function startApiNodePresence(options: ApiNodePresenceOptions): ApiNodePresence {
  const { redis, keys, nodeId, logger } = options;
  const queues = keys.apiNodeQueues(nodeId);
  const warn = (what: string) => (error: unknown) => logger.warn({ err: error }, what);
  const sessions = createApiNodeSessions({
    redis,
    keys,
    nodeId,
    logger,
    queueOwnerTtlMs: QUEUE_OWNER_TTL_MS,
  });
  const grace = createRestartGrace(redis, options.graceMs);
  const epochs = new AsyncLocalStorage<number>();
  const inFlight = new Set<Promise<unknown>>();
  /** Sessions closed by fencing, most recent last; a few thousand at most. */
  const fencedSessions = new Set<string>();
  let epoch = 0;
  let fencings = 0;
  let renewedAt = Date.now();
  let closing = false;

  const heartbeat = async () => {
    const started = Date.now();
    const results = await redis
      .multi()
      .exists(keys.apiNode(nodeId))
      .get(keys.apiNodeBuried(nodeId))
      .set(keys.apiNode(nodeId), new Date().toISOString(), 'PX', options.heartbeatTtlMs)
      .sadd(keys.apiNodes, nodeId)
      .exec();
    if (results === null) throw new Error('the heartbeat transaction was discarded');
    for (const [error] of results) if (error) throw error;
    renewedAt = started;
    if (results[1]?.[1] !== null) await fenceSelf();
    else {
      if (results[0]?.[1] === 0) sessions.registrationLost();
      await sessions.record();
    }
  };

  /** Another node took this one for dead and ended its sessions: close them here too, start anew. */
  const fenceSelf = async () => {
    epoch += 1;
    fencings += 1;
    logger.error(
      { nodeId, sessions: sessions.size },
      'this API node was taken for dead; closing its sessions',
    );
    const { ended, removed } = sessions.clear();
    for (const session of ended) fencedSessions.add(session);
    for (const session of fencedSessions) {
      if (fencedSessions.size <= MAX_FENCED_SESSIONS) break;
      fencedSessions.delete(session);
    }
    await removed;
    await redis.del(keys.apiNodeBuried(nodeId));
    // Requests from before are refused under their lock or write first: their meetings are then left.
    await Promise.allSettled([...inFlight]);
    options.fenced();
  };

  const bury = async (deadId: string) => {
    const won = await redis.set(keys.apiNodeBuried(deadId), nodeId, 'EX', 300, 'NX');
    if (won !== 'OK') return;
    const lost = await redis.smembers(keys.apiNodeQueues(deadId));
    logger.error({ nodeId: deadId, sessions: lost.length }, 'an API node stopped; ending its sessions');
    for (const session of lost) {
      const [userId, queueId] = session.split(' ');
      if (userId && queueId)
        await options.sessionLost(userId, queueId).catch(warn('could not end a lost session'));
    }
    // Only the sessions ended here: a node that comes back records its new ones meanwhile.
    const forget = redis.multi().srem(keys.apiNodes, deadId);
    if (lost.length > 0) forget.srem(keys.apiNodeQueues(deadId), ...lost);
    await forget.exec();
  };

  const watch = async () => {
    await heartbeat();
    for (const otherId of await redis.smembers(keys.apiNodes)) {
      if (otherId === nodeId) continue;
      if ((await redis.exists(keys.apiNode(otherId))) === 0 && grace.mayJudge()) await bury(otherId);
    }
  };
  void redis.del(keys.apiNodeBuried(nodeId)).then(heartbeat).catch(warn('could not register the API node'));
  const timer = setInterval(() => {
    if (!closing) watch().catch(warn('could not renew the API node registration'));
  }, options.heartbeatMs);

  return {
    sessionOpened(userId, queueId) {
      sessions.opened(`${userId} ${queueId}`);
    },
    sessionClosed(userId, queueId) {
      sessions.forget(`${userId} ${queueId}`, 'could not forget a session');
    },
    async claimSession(userId, queueId) {
      const member = `${userId} ${queueId}`;
      let holder: string | undefined;
      for (const candidate of await redis.smembers(keys.apiNodes)) {
        if ((await redis.sismember(keys.apiNodeQueues(candidate), member)) === 1) {
          holder = candidate;
          break;
        }
      }
      if (holder === undefined) return false;
      // Out of the holder's set first: if the holder dies now, nobody ends the session it gave up.
      const claim = redis.multi();
      if (holder !== nodeId) claim.srem(keys.apiNodeQueues(holder), member);
      claimQueueOwner(claim.sadd(queues, member), keys.queueOwner(queueId), nodeId, QUEUE_OWNER_TTL_MS);
      const results = await claim.exec();
      if (results === null) throw new Error('the session claim transaction was discarded');
      for (const [error] of results) if (error) throw error;
      sessions.claimed(member, Number(results.at(-1)?.[1]));
      if (holder !== nodeId) logger.info({ from: holder }, 'took over an /events session reconnected here');
      return true;
    },
    sessionMoved(userId, queueId) {
      // Out of this node's set too: it may have been recorded here again after Redis restarted empty.
      sessions.forget(`${userId} ${queueId}`, 'could not forget a session that moved');
    },
    async ownsSession(queueId) {
      if (!grace.mayJudge())
        throw new ChatError(
          'dependency_unavailable',
          `cannot tell yet whether another node took over /events session ${queueId}: expected Redis to have been connected for ${options.graceMs} ms, so that every node recorded its sessions again, but it (re)connected less than that ago: ask again later`,
        );
      const owner = queueOwnerOf(await redis.get(keys.queueOwner(queueId)));
      return owner === null || owner === nodeId;
    },
    scope(work) {
      const running = epochs.run(epoch, work);
      inFlight.add(running);
      void running.then(
        () => inFlight.delete(running),
        () => inFlight.delete(running),
      );
      return running;
    },
    assertSessionOpen(userId, queueId) {
      if (!fencedSessions.has(`${userId} ${queueId}`)) return;
      throw new ChatError(
        'invalid_input',
        `invalid join: \`queue-id\` header: expected an open /events session but ${queueId} was closed when this node was fenced: reconnect`,
      );
    },
    assertCurrent() {
      const silentMs = Date.now() - renewedAt;
      const since = epochs.getStore();
      if (
        silentMs <= options.heartbeatTtlMs - options.heartbeatMs &&
        (since === undefined || since === epoch)
      )
        return;
      throw new ChatError(
        'dependency_unavailable',
        `expected this API node to be registered in the cluster but ${since !== undefined && since !== epoch ? 'it was taken for dead since the request came' : `its registration was last renewed ${silentMs} ms ago`}: retry`,
        { details: { retryAfterSeconds: 1 } },
      );
    },
    get fencings() {
      return fencings;
    },
    async close() {
      closing = true;
      clearInterval(timer);
      await redis.del(keys.apiNode(nodeId)).catch(warn('could not unregister the API node'));
    },
  };
}
