import type { SfuOptionsInput, SfuStats } from '@collab-suite/webrtc-sfu';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { clusterKeys, type MediaNodeInfo, type RoutedMediaCommand } from './cluster-keys.js';
import { createMediaHost } from './media-host.js';
import { isMediaCommand, type MediaHostLoad } from './media-protocol.js';

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
 * item of.
 */
export async function startMediaNode(options: MediaNodeOptions): Promise<MediaNode> {
  const keys = clusterKeys(options.prefix);
  const { logger, nodeId } = options;
  const commands = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: null });
  const redis = new Redis(options.redisUrl, { lazyConnect: true });
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
      await redis
        .multi()
        .set(keys.mediaNode(nodeId), JSON.stringify(info), 'PX', options.heartbeatTtlMs)
        .sadd(keys.mediaNodes, nodeId)
        .exec();
      registered = true;
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
    void host.run(routed.command).then(async (reply) => {
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
