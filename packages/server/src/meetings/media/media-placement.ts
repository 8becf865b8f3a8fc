import { ChatError } from '@collab-suite/chat-domain';
import type { Redis } from 'ioredis';
import { type ClusterKeys, DELETE_IF_EQUAL, type MediaNodeInfo } from './cluster-keys.js';

/** Seconds a client is told to wait when no media node can take a meeting. */
const RETRY_AFTER_SECONDS = 5;

/** The media nodes whose registration has not expired, with what they last reported. */
export async function liveMediaNodes(redis: Redis, keys: ClusterKeys): Promise<MediaNodeInfo[]> {
  const ids = await redis.smembers(keys.mediaNodes);
  if (ids.length === 0) return [];
  const infos = await redis.mget(...ids.map((id) => keys.mediaNode(id)));
  return infos.flatMap((text) => (text === null ? [] : [JSON.parse(text) as MediaNodeInfo]));
}

/** The least loaded node with room left: fewest participants, then fewest meetings. */
function leastLoaded(nodes: readonly MediaNodeInfo[]): MediaNodeInfo | undefined {
  return nodes
    .filter((node) => node.participants < node.capacity)
    .sort(
      (a, b) => a.participants - b.participants || a.meetings - b.meetings || a.id.localeCompare(b.id),
    )[0];
}

/** Where meetings' media live: read, placed once across API nodes, forgotten. */
export interface MediaPlacement {
  /** The live node holding the meeting, if any. */
  find(meetingId: string): Promise<string | undefined>;
  /**
   * The live node holding the meeting, placing it on the least loaded node with room when it has
   * none (two API nodes placing the same meeting at once agree on one node).
   * @throws ChatError `media_unavailable` when no live node has room.
   */
  place(meetingId: string): Promise<string>;
  /** Forgets the meeting's placement when it is still on `nodeId`. */
  forget(meetingId: string, nodeId: string): Promise<void>;
  /** Whether the node's registration is alive. */
  isLive(nodeId: string): Promise<boolean>;
}

/** Placement of meetings on media nodes, recorded in Redis. */
export function createMediaPlacement(redis: Redis, keys: ClusterKeys): MediaPlacement {
  const isLive = async (nodeId: string) => (await redis.exists(keys.mediaNode(nodeId))) === 1;
  const find = async (meetingId: string) => {
    const nodeId = await redis.get(keys.placement(meetingId));
    return nodeId !== null && (await isLive(nodeId)) ? nodeId : undefined;
  };
  return {
    find,
    isLive,
    async place(meetingId) {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const current = await redis.get(keys.placement(meetingId));
        if (current !== null) {
          if (await isLive(current)) return current;
          // Its node died: a new placement replaces the dead one (only that one, atomically).
          await redis.eval(DELETE_IF_EQUAL, 1, keys.placement(meetingId), current);
        }
        const chosen = leastLoaded(await liveMediaNodes(redis, keys));
        if (chosen === undefined) {
          throw new ChatError(
            'media_unavailable',
            'no media node can take this meeting now: every one is full or none is running; retry later',
            { details: { retryAfterSeconds: RETRY_AFTER_SECONDS } },
          );
        }
        const placed = await redis.set(keys.placement(meetingId), chosen.id, 'NX');
        if (placed === 'OK') {
          await redis.sadd(keys.mediaNodeMeetings(chosen.id), meetingId);
          return chosen.id;
        }
      }
      throw new ChatError('media_failed', 'could not agree on a media node for this meeting');
    },
    async forget(meetingId, nodeId) {
      await redis.eval(DELETE_IF_EQUAL, 1, keys.placement(meetingId), nodeId);
      await redis.srem(keys.mediaNodeMeetings(nodeId), meetingId);
    },
  };
}
