import type { KeyedLock, MediaServer } from '@collab-suite/chat-domain';
import type { SfuStats } from '@collab-suite/webrtc-sfu';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ServerConfig } from '../../config.js';
import type { HealthStatus } from '../../health/health-check.js';
import { sfuOptions } from '../sfu-options.js';
import { type ApiNodePresence, startApiNodePresence } from './api-node-presence.js';
import { clusterKeys } from './cluster-keys.js';
import { type ClusterMediaServerOptions, createClusterMediaServer } from './cluster-media-server.js';
import { createRedisKeyedLock } from './redis-keyed-lock.js';
import { createWorkerMediaServer } from './worker-media-server.js';

/** Where an API process's meetings get their media, and what goes with it. */
export interface MeetingMedia {
  media: MediaServer;
  /** Meeting locks across API nodes, when there are several. */
  locks?: KeyedLock;
  /**
   * For an API node among others: registers it with its `/events` sessions, so that another node
   * ends them (`sessionLost`) if this one dies; `fenced` closes them when this node learns it was
   * taken for dead.
   */
  startPresence?(
    sessionLost: (userId: string, queueId: string) => Promise<void>,
    fenced: () => void,
  ): ApiNodePresence;
  /** The SFU's sessions and traffic, when it runs in this process (on a worker thread). */
  sfuStats?(): Promise<SfuStats | undefined>;
  /** The health entry's status: where media runs and its load. */
  health(): Promise<HealthStatus>;
  close(): Promise<void>;
}

/** Commands a media node has not answered within this fail. */
const COMMAND_TIMEOUT_MS = 10_000;
/** ioredis's longest pause between two reconnection attempts: nodes see Redis back up to this late. */
const RECONNECT_SPREAD_MS = 2000;

/**
 * How long a node missing from Redis is given to register again before it is judged dead, after
 * Redis (re)connects: one expiry (five heartbeats) plus the spread of the nodes' reconnections.
 */
export function clusterGraceMs(heartbeatMs: number): number {
  return heartbeatMs * 5 + RECONNECT_SPREAD_MS;
}

/**
 * Media for the process's roles: `api,media` runs the SFU on a worker thread of this process; `api`
 * alone places meetings on media nodes through Redis and locks meetings across API nodes there.
 * A `media` override (tests) is used as it is.
 */
export async function meetingMediaForRoles(
  config: ServerConfig,
  logger: Logger,
  override?: MediaServer,
  coordination?: ClusterMediaServerOptions['coordination'],
): Promise<MeetingMedia> {
  const iceServers = config.meetings.iceServers;
  if (override !== undefined) {
    return {
      media: override,
      health: async () => ({ live: true, ready: true, details: { iceServers: iceServers.length } }),
      close: () => override.close(),
    };
  }
  if (config.cluster.roles.includes('media')) {
    const worker = createWorkerMediaServer({ sfuOptions: sfuOptions(config), iceServers, logger });
    return {
      media: worker,
      sfuStats: () => worker.stats(),
      async health() {
        const load = worker.load();
        const details = {
          iceServers: iceServers.length,
          placement: 'worker-thread',
          meetings: load.meetings.length,
          participants: load.participants,
          restarts: worker.restarts,
        };
        return { live: true, ready: true, details };
      },
      close: () => worker.close(),
    };
  }
  const redisUrl = config.chat.redisUrl;
  if (redisUrl === undefined) throw new Error('an API node needs CHAT_REDIS_URL');
  const keys = clusterKeys(config.cluster.redisPrefix);
  const cluster = await createClusterMediaServer({
    redisUrl,
    prefix: config.cluster.redisPrefix,
    apiNodeId: config.cluster.nodeId,
    iceServers,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
    redisTimeoutMs: config.chat.redisTimeoutMs,
    watchMs: config.cluster.heartbeatMs,
    graceMs: clusterGraceMs(config.cluster.heartbeatMs),
    ...(coordination ? { coordination } : {}),
    logger,
  });
  // The meeting lock and the node's presence: while Redis is away a command fails after one
  // reconnection attempt or CHAT_REDIS_TIMEOUT_MS, so a meeting call answers 503 promptly instead of
  // waiting through ioredis's default twenty retries.
  const connection = new Redis(redisUrl, {
    commandTimeout: config.chat.redisTimeoutMs,
    maxRetriesPerRequest: 1,
  });
  connection.on('error', (error: unknown) => logger.debug({ err: error }, 'cluster Redis connection error'));
  let presence: ApiNodePresence | undefined;
  return {
    media: cluster,
    locks: createRedisKeyedLock(connection, keys, {
      onLost: (meetingId) =>
        logger.warn({ meetingId }, 'lost the lock of a meeting while holding it; its writes will be refused'),
    }),
    startPresence(sessionLost, fenced) {
      presence = startApiNodePresence({
        redis: connection,
        keys,
        nodeId: config.cluster.nodeId,
        heartbeatMs: config.cluster.heartbeatMs,
        heartbeatTtlMs: config.cluster.heartbeatMs * 5,
        graceMs: clusterGraceMs(config.cluster.heartbeatMs),
        logger,
        sessionLost,
        fenced,
      });
      return presence;
    },
    async health() {
      const nodes = await cluster.mediaNodes();
      const free = nodes.reduce((sum, node) => sum + Math.max(0, node.capacity - node.participants), 0);
      return {
        live: true,
        ready: true,
        details: {
          iceServers: iceServers.length,
          placement: 'media-nodes',
          mediaNodes: nodes.length,
          participants: nodes.reduce((sum, node) => sum + node.participants, 0),
          freeCapacity: free,
          fencings: presence?.fencings ?? 0,
        },
      };
    },
    async close() {
      await presence?.close();
      await cluster.close();
      connection.disconnect();
    },
  };
}
