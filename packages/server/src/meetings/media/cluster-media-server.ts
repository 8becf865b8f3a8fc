import {
  ChatError,
  type IceServerConfig,
  type MediaServerEvent,
  type MeetingCoordination,
} from '@collab-suite/chat-domain';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isRedisUnavailableError } from '../../http/redis-unavailable.js';
import { clusterKeys, type MediaNodeInfo, type RoutedMediaCommand } from './cluster-keys.js';
import { createMediaPlacement, liveMediaNodes, type MediaPlacementOptions } from './media-placement.js';
import { failedReply, type MediaMethod, type MediaReply } from './media-protocol.js';
import { createRestartGrace } from './redis-restart-grace.js';
import { createRemoteMediaServer, type RemoteMediaServer } from './remote-media-server.js';

/** Options of {@link createClusterMediaServer}. */
export interface ClusterMediaServerOptions {
  redisUrl: string;
  prefix: string;
  /** This API node's id: replies come back on its channel. */
  apiNodeId: string;
  iceServers: IceServerConfig[];
  /** A command a media node has not answered within this fails with `media_failed`. */
  commandTimeoutMs: number;
  /**
   * A Redis command of the placement (reads, placements, publishing a command) not answered within
   * this, or failing after one reconnection attempt, fails the call with `dependency_unavailable`
   * (503) instead of waiting through ioredis's twenty retries. @default 2000
   */
  redisTimeoutMs?: number;
  /** How often dead media nodes are looked for. */
  watchMs: number;
  /**
   * How long a media node missing from Redis is given to register again before it is taken for
   * dead: after Redis (re)connects (a restart), when the database names it as a meeting's home, and
   * when its registration expired but its process still listens for commands (a starved node).
   * @default 0
   */
  graceMs?: number;
  /**
   * Where each meeting's home is recorded (the PostgreSQL store); Redis then only caches it, and a
   * home that died while Redis had lost its data is still found there.
   */
  coordination?: NonNullable<MediaPlacementOptions['coordination']> &
    Pick<MeetingCoordination, 'listMediaHomes' | 'listMeetingsOnMediaNode'>;
  logger: Logger;
}

/** The MediaServer of an API node, and what its health entry shows. */
export interface ClusterMediaServer extends RemoteMediaServer {
  /** The live media nodes and their last reported load. */
  mediaNodes(): Promise<MediaNodeInfo[]>;
}

/** The bound on one placement command when `redisTimeoutMs` is not given. */
const DEFAULT_REDIS_TIMEOUT_MS = 2000;
/** Seconds a caller is told to wait when Redis failed a placement command. */
const REDIS_RETRY_AFTER_SECONDS = 2;

/** `error` as `dependency_unavailable` when it is ioredis saying Redis is away, else unchanged. */
function redisUnavailableAsChatError(error: unknown): unknown {
  if (!isRedisUnavailableError(error)) return error;
  return new ChatError(
    'dependency_unavailable',
    `expected Redis to place the meeting's media but it is unavailable; retry in ${REDIS_RETRY_AFTER_SECONDS} s`,
    { details: { retryAfterSeconds: REDIS_RETRY_AFTER_SECONDS } },
  );
}

/** Every this many watches, the homes the database names are compared with the nodes Redis knows. */
const HOMES_EVERY_ROUNDS = 5;

/** A command as the remote media server sends it. */
type SentCommand = { id: number; method: MediaMethod; args: unknown[] };

/** Methods that place a meeting that has no media node yet. */
const placing: readonly MediaMethod[] = ['openMeeting', 'addParticipant'];
/** Methods that have nothing to do for a meeting no live node holds. */
const idempotentWithoutMedia: readonly MediaMethod[] = [
  'closeMeeting',
  'removeParticipant',
  'setStreamEnabled',
];

/**
 * The meeting port of an API node: each meeting's media lives on one media node, placed when the
 * meeting opens (least loaded live node with room) and recorded in the database (with `coordination`;
 * Redis caches it), so every API node routes the meeting's calls to the same node, even after Redis
 * lost its data. Commands go on the node's channel, replies come back on this
 * node's; a node whose registration expires (and whose process no longer listens for commands, or
 * has been silent for `graceMs`) is found dead by one API node, which stops its meetings (a
 * `media-lost` event) and forgets their placements.
 */
export async function createClusterMediaServer(
  options: ClusterMediaServerOptions,
): Promise<ClusterMediaServer> {
  const keys = clusterKeys(options.prefix);
  const { logger, apiNodeId } = options;
  // Placement, registrations and commands: bounded like the meeting lock's connection, so a call
  // answers 503 promptly while Redis is away. Replies and events are subscriptions that wait.
  const redis = new Redis(options.redisUrl, {
    lazyConnect: true,
    commandTimeout: options.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
  });
  const replies = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: null });
  const events = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: null });
  // ioredis reconnects by itself; without a listener each failed attempt would print an
  // "Unhandled error event" to stderr for the whole outage.
  for (const connection of [redis, replies, events]) {
    connection.on('error', (error: unknown) =>
      logger.debug({ err: error }, 'cluster Redis connection error'),
    );
  }
  await Promise.all([redis.connect(), replies.connect(), events.connect()]);
  const graceMs = options.graceMs ?? 0;
  const placement = createMediaPlacement(redis, keys, {
    ...(options.coordination ? { coordination: options.coordination } : {}),
    homeGraceMs: graceMs,
    pollMs: Math.max(20, Math.round(options.watchMs / 4)),
  });
  const restartGrace = createRestartGrace(redis, graceMs);
  /** Commands waiting for a reply: the node asked, the command, and the timer that gives up. */
  const waiting = new Map<
    number,
    { nodeId: string; command: SentCommand; rerouted: boolean; timer: NodeJS.Timeout }
  >();
  let closed = false;

  const settle = (reply: MediaReply) => {
    const entry = waiting.get(reply.id);
    if (entry !== undefined) {
      clearTimeout(entry.timer);
      waiting.delete(reply.id);
    }
    media.receive(reply);
  };
  const failWaitingOn = (nodeId: string, reason: string) => {
    for (const [id, entry] of waiting) {
      if (entry.nodeId === nodeId) settle(failedReply(id, new ChatError('media_failed', reason)));
    }
  };

  const route = async (command: SentCommand, target?: string) => {
    const meetingId = String(command.args[0]);
    const nodeId =
      target ??
      (placing.includes(command.method) ? await placement.place(meetingId) : await placement.find(meetingId));
    if (nodeId === undefined) {
      if (idempotentWithoutMedia.includes(command.method)) {
        settle({ id: command.id, ok: true, value: null });
        return;
      }
      throw new ChatError(
        'participant_not_found',
        `expected meeting ${meetingId} to have media but no live media node holds it: join again`,
      );
    }
    const timer = setTimeout(() => {
      settle(
        failedReply(
          command.id,
          new ChatError(
            'media_failed',
            `the media node did not answer within ${options.commandTimeoutMs} ms`,
          ),
        ),
      );
    }, options.commandTimeoutMs);
    waiting.set(command.id, { nodeId, command, rerouted: target !== undefined, timer });
    const routed: RoutedMediaCommand = { replyTo: apiNodeId, command };
    const receivers = await redis.publish(keys.mediaCommands(nodeId), JSON.stringify(routed));
    if (receivers === 0) {
      settle(
        failedReply(command.id, new ChatError('media_failed', 'the media node of this meeting is gone')),
      );
    }
    if (command.method === 'closeMeeting') await placement.forget(meetingId, nodeId);
  };

  /**
   * A media node refused to create media for a meeting another live node hosts: the database is
   * told that one is the home (if it still names the refusing node) and the command goes there, once.
   */
  const rerouteRefused = (reply: MediaReply) => {
    const hostedOn = reply.ok ? undefined : reply.details?.hostedOn;
    const entry = waiting.get(reply.id);
    if (typeof hostedOn !== 'string' || entry === undefined || entry.rerouted) return false;
    clearTimeout(entry.timer);
    waiting.delete(reply.id);
    const meetingId = String(entry.command.args[0]);
    logger.warn(
      { meetingId, refusedBy: entry.nodeId, hostedOn },
      'a media node refused a meeting hosted elsewhere',
    );
    void (async () => {
      await options.coordination?.placeMeetingMedia(meetingId, hostedOn, entry.nodeId);
      await route(entry.command, hostedOn);
    })().catch((error: unknown) => settle(failedReply(reply.id, redisUnavailableAsChatError(error))));
    return true;
  };

  replies.on('message', (channel: string, text: string) => {
    try {
      if (channel === keys.mediaTalking)
        media.observe((JSON.parse(text) as { event: MediaServerEvent }).event);
      else {
        const reply = JSON.parse(text) as MediaReply;
        if (!rerouteRefused(reply)) settle(reply);
      }
    } catch (error) {
      logger.warn({ err: error }, 'ignored a media message that is not JSON');
    }
  });
  await replies.subscribe(keys.mediaReplies(apiNodeId), keys.mediaTalking);

  /** Takes media events off the shared list: each goes to one API node, which tells the participants. */
  const takeEvents = async () => {
    while (!closed) {
      try {
        const item = await events.blpop(keys.mediaEvents, 1);
        if (item === null) continue;
        const { event } = JSON.parse(item[1]) as { event: MediaServerEvent };
        media.receive({ kind: 'event', event });
      } catch (error) {
        if (closed) return;
        logger.warn({ err: error }, 'could not take a media event');
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };

  /**
   * Adds to the set of media nodes the homes the database names that Redis does not know (it lost
   * them with its data): the watch then judges them like any other node.
   */
  const adoptRecordedHomes = async () => {
    const homes = await options.coordination?.listMediaHomes();
    if (homes === undefined || homes.length === 0 || !restartGrace.mayJudge()) return;
    const known = new Set(await redis.smembers(keys.mediaNodes));
    const unknown = homes.filter((nodeId) => !known.has(nodeId));
    if (unknown.length > 0) await redis.sadd(keys.mediaNodes, ...unknown);
  };
  let rounds = 0;
  /** When each node was first seen without its registration but still subscribed to its commands. */
  const silentSince = new Map<string, number>();

  /**
   * Whether a node whose registration expired is only slow: its process still holds its Redis
   * subscription to its commands (a killed process loses it at once), and for less than `graceMs`
   * since that was first seen. A starved event loop (a loaded machine) misses heartbeats without
   * the node being gone; stopping its meetings would end media that still flows.
   */
  const onlySlow = async (nodeId: string) => {
    const reply = (await redis.pubsub('NUMSUB', keys.mediaCommands(nodeId))) as unknown[];
    if (Number(reply[1] ?? 0) === 0) {
      silentSince.delete(nodeId);
      return false;
    }
    const since = silentSince.get(nodeId) ?? Date.now();
    if (!silentSince.has(nodeId)) {
      silentSince.set(nodeId, since);
      logger.warn({ nodeId }, 'a media node missed its heartbeats but still listens for commands');
    }
    return Date.now() - since < graceMs;
  };

  /** Finds media nodes whose registration expired; one API node stops each one's meetings. */
  const watch = async () => {
    rounds += 1;
    if (rounds % HOMES_EVERY_ROUNDS === 0) await adoptRecordedHomes();
    const ids = await redis.smembers(keys.mediaNodes);
    for (const nodeId of ids) {
      if (await placement.isLive(nodeId)) {
        silentSince.delete(nodeId);
        continue;
      }
      // Just after Redis came back, registrations are missing until each node's next heartbeat.
      if (!restartGrace.mayJudge()) return;
      if (await onlySlow(nodeId)) continue;
      silentSince.delete(nodeId);
      failWaitingOn(nodeId, 'the media node of this meeting stopped');
      const buried = await redis.set(keys.mediaNodeBuried(nodeId), apiNodeId, 'EX', 300, 'NX');
      if (buried !== 'OK') continue;
      // Redis keeps each node's meetings; when it lost them, the database still places them there.
      let meetingIds = await redis.smembers(keys.mediaNodeMeetings(nodeId));
      if (meetingIds.length === 0) {
        meetingIds = (await options.coordination?.listMeetingsOnMediaNode(nodeId)) ?? [];
      }
      for (const meetingId of meetingIds) await placement.forget(meetingId, nodeId);
      await redis.multi().del(keys.mediaNodeMeetings(nodeId)).srem(keys.mediaNodes, nodeId).exec();
      logger.error({ nodeId, meetings: meetingIds }, 'a media node stopped; stopping its meetings');
      if (meetingIds.length > 0) {
        media.receive({
          kind: 'event',
          event: { type: 'media-lost', meetingIds, reason: 'media_server_failed' },
        });
      }
    }
  };
  const watcher = setInterval(() => {
    watch().catch((error: unknown) => logger.warn({ err: error }, 'could not look for dead media nodes'));
  }, options.watchMs);

  const media = createRemoteMediaServer({
    iceServers: options.iceServers,
    link: {
      send(command) {
        route(command).catch((error: unknown) =>
          settle(failedReply(command.id, redisUnavailableAsChatError(error))),
        );
      },
      async close() {
        closed = true;
        clearInterval(watcher);
        for (const entry of waiting.values()) clearTimeout(entry.timer);
        redis.disconnect();
        replies.disconnect();
        events.disconnect();
      },
    },
  });
  void takeEvents();
  return Object.defineProperties(media as ClusterMediaServer, {
    mediaNodes: { value: () => liveMediaNodes(redis, keys) },
  });
}
