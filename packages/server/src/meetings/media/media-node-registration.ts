import { ChatError } from '@collab-suite/chat-domain';
import type { Redis } from 'ioredis';
import type { ClusterKeys, MediaNodeInfo } from './cluster-keys.js';

/** What one heartbeat of a media node found besides renewing its registration. */
export interface MediaNodeHeartbeat {
  /** Its registration was gone (expired, or Redis lost its data): it was registered again. */
  reregistered: boolean;
  /** An API node took it for dead meanwhile (and stopped its meetings). */
  buried: boolean;
}

/**
 * Renews a media node's registration in one round trip, and says whether it had to register again
 * and whether it had been taken for dead (then the buried mark is dropped, so that a later death is
 * handled again).
 */
export async function renewMediaNode(
  redis: Redis,
  keys: ClusterKeys,
  info: MediaNodeInfo,
  ttlMs: number,
): Promise<MediaNodeHeartbeat> {
  const results = await redis
    .multi()
    .exists(keys.mediaNode(info.id))
    .get(keys.mediaNodeBuried(info.id))
    .set(keys.mediaNode(info.id), JSON.stringify(info), 'PX', ttlMs)
    .sadd(keys.mediaNodes, info.id)
    .exec();
  if (results === null) throw new Error('the heartbeat transaction was discarded');
  for (const [error] of results) if (error) throw error;
  const buried = results[1]?.[1] !== null;
  if (buried) await redis.del(keys.mediaNodeBuried(info.id));
  return { reregistered: results[0]?.[1] === 0, buried };
}

/**
 * Records again in Redis the meetings a media node hosts, after Redis lost them: each one's
 * placement (unless another placement took its place meanwhile) and the node's set of meetings.
 */
export async function reannounceMeetings(
  redis: Redis,
  keys: ClusterKeys,
  nodeId: string,
  meetingIds: readonly string[],
): Promise<void> {
  if (meetingIds.length === 0) return;
  const transaction = redis.multi().sadd(keys.mediaNodeMeetings(nodeId), ...meetingIds);
  for (const meetingId of meetingIds) transaction.set(keys.placement(meetingId), nodeId, 'NX');
  await transaction.exec();
}

/**
 * The refusal of a media node asked to create media for a meeting that another live node hosts
 * (by the placement Redis holds): undefined when it may go ahead.
 */
export async function refusalToHost(
  redis: Redis,
  keys: ClusterKeys,
  nodeId: string,
  meetingId: string,
): Promise<ChatError | undefined> {
  const hostedOn = await redis.get(keys.placement(meetingId));
  if (hostedOn === null || hostedOn === nodeId) return undefined;
  if ((await redis.exists(keys.mediaNode(hostedOn))) === 0) return undefined;
  return new ChatError(
    'media_unavailable',
    `expected meeting ${meetingId} to have no media elsewhere but media node ${hostedOn} hosts it`,
    { details: { hostedOn, retryAfterSeconds: 1 } },
  );
}
