import type { SfuOptionsInput, SfuStats } from '@collab-suite/webrtc-sfu';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { clusterKeys, type MediaNodeInfo, type RoutedMediaCommand } from './cluster-keys.js';
import { createMediaHost } from './media-host.js';
import { reannounceMeetings, refusalToHost, renewMediaNode } from './media-node-registration.js';
import { failedReply, isMediaCommand, type MediaCommand, type MediaHostLoad } from './media-protocol.js';

/** Commands that create a meeting's media when the node does not hold it yet. */
const creates = new Set(['openMeeting', 'addParticipant']);

/** Commands after which the node reports its load at once rather than at the next heartbeat. */
const changesLoad = new Set(['openMeeting', 'closeMeeting', 'addParticipant', 'removeParticipant']);

/** Options of {@link startMediaNode}. */
export interface MediaNodeOptions {
  redisUrl: string;
  prefix: string;
  nodeId: string;
  /** Where clients reach its media, reported to operators. */
  address: string;
  /** Participants it takes at most; API nodes place no meeting here past it. */
  capacity: number;
  sfuOptions: SfuOptionsInput;
  /** Heartbeat period; the registration expires after `heartbeatTtlMs` without one. */
  heartbeatMs: number;
  heartbeatTtlMs: number;
  logger: Logger;
}

/** A running media node. */
export interface MediaNode {
  readonly id: string;
  /** What `/health/` shows: the node, its capacity and the meetings it hosts. */
  describe(): { nodeId: string; capacity: number; participants: number; meetings: MediaHostLoad['meetings'] };
  /** The SFU's sessions and traffic (see `Sfu.stats`). */
  stats(): SfuStats;
  /** Whether its last heartbeat reached Redis. */
  registered(): boolean;
  /** Unregisters (API nodes then stop its meetings at once) and stops the SFU. */
  close(): Promise<void>;
}

/**
 * A media node: the SFU of the meetings API nodes place here. It registers in Redis with a heartbeat
 * that expires (id, address, capacity, load), takes commands on its own channel and publishes each
 * reply on the asking API node's channel; talking events go on a list that one API node takes each
 * item of. It answers for what it hosts: it refuses to create media for a meeting another live node
 * hosts, announces its meetings again when Redis lost its registration, and closes them when an API
 * node took it for dead (their meetings were stopped).
 */
export async function startMediaNode(options: MediaNodeOptions): Promise<MediaNode> {
  const keys = clusterKeys(options.prefix);
  const { logger, nodeId } = options;
  const commands = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: null });
  const redis = new Redis(options.redisUrl, { lazyConnect: true });
  // ioredis reconnects by itself; without a listener each failed attempt would print an
  // "Unhandled error event" to stderr for the whole outage.
  for (const connection of [commands, redis]) {
    connection.on('error', (error: unknown) =>
      logger.debug({ err: error }, 'media node Redis connection error'),
    );
  }
  await Promise.all([commands.connect(), redis.connect()]);
  // A node that comes back under the same id may be found dead again later.
  await redis.del(keys.mediaNodeBuried(nodeId));
  const host = createMediaHost(options.sfuOptions);
  let registered = false;
  let closing = false;

  host.onEvent((event) => {
    const text = JSON.stringify({ nodeId, event });
    redis
      .multi()
      .rpush(keys.mediaEvents, text)
      .publish(keys.mediaTalking, text)
      .exec()
      .catch((error: unknown) => logger.warn({ err: error }, 'could not publish a media event'));
  });

  let nextInternalId = -1;
  const closeHosted = (meetingId: string) =>
    host.run({ id: nextInternalId--, method: 'closeMeeting', args: [meetingId] });
  /** Whether the command would create media for a meeting not held here, which another node hosts. */
  const refusal = async (command: MediaCommand) => {
    if (!creates.has(command.method)) return undefined;
    const meetingId = String(command.args[0]);
    if (host.load().meetings.some((meeting) => meeting.meetingId === meetingId)) return undefined;
    return refusalToHost(redis, keys, nodeId, meetingId);
  };

  const heartbeat = async () => {
    const load = host.load();
    const info: MediaNodeInfo = {
      id: nodeId,
      address: options.address,
      capacity: options.capacity,
      participants: load.participants,
      meetings: load.meetings.length,
      heartbeatAt: new Date().toISOString(),
    };
    try {
      const renewed = await renewMediaNode(redis, keys, info, options.heartbeatTtlMs);
      registered = true;
      if (renewed.buried) {
        // Taken for dead: its meetings were stopped, and their media must go too.
        logger.error(
          { nodeId, meetings: load.meetings.length },
          'this media node was taken for dead; closing its meetings',
        );
        for (const meeting of load.meetings) await closeHosted(meeting.meetingId);
      } else if (renewed.reregistered && load.meetings.length > 0) {
        logger.warn(
          { nodeId, meetings: load.meetings.length },
          'registered again; announcing the meetings hosted here',
        );
        await reannounceMeetings(
          redis,
          keys,
          nodeId,
          load.meetings.map((meeting) => meeting.meetingId),
        );
      }
    } catch (error) {
      registered = false;
      logger.warn({ err: error }, 'the media node could not renew its registration');
    }
  };

  commands.on('message', (_channel: string, text: string) => {
    let routed: RoutedMediaCommand;
    try {
      routed = JSON.parse(text) as RoutedMediaCommand;
    } catch {
      logger.warn('ignored a media command that is not JSON');
      return;
    }
    if (!isMediaCommand(routed.command) || typeof routed.replyTo !== 'string') return;
    const command = routed.command;
    const run = async () => {
      const refused = await refusal(command).catch(() => undefined);
      return refused === undefined ? host.run(command) : failedReply(command.id, refused);
    };
    void run().then(async (reply) => {
      // The new load first, so a placement made after this reply already sees it.
      if (changesLoad.has(routed.command.method)) await heartbeat();
      try {
        await redis.publish(keys.mediaReplies(routed.replyTo), JSON.stringify(reply));
      } catch (error) {
        logger.warn({ err: error }, 'could not publish a media reply');
      }
    });
  });
  await commands.subscribe(keys.mediaCommands(nodeId));
  await heartbeat();
  const timer = setInterval(() => {
    if (!closing) void heartbeat();
  }, options.heartbeatMs);
  logger.info({ nodeId, capacity: options.capacity, address: options.address }, 'media node registered');

  return {
    id: nodeId,
    describe() {
      const load = host.load();
      return { nodeId, capacity: options.capacity, participants: load.participants, meetings: load.meetings };
    },
    stats: () => host.stats(),
    registered: () => registered,
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(timer);
      await redis.del(keys.mediaNode(nodeId)).catch(() => undefined);
      await host.close();
      commands.disconnect();
      redis.disconnect();
    },
  };
}
