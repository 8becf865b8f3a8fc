import { ChatError, type MeetingCoordination } from '@collab-suite/chat-domain';
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

/** Options of {@link createMediaPlacement}. */
export interface MediaPlacementOptions {
  /**
   * The record of each meeting's home in the database, the source of truth; Redis then only caches
   * it. Without it, placements live in Redis alone (and a Redis that lost its data forgets them).
   */
  coordination?: Pick<MeetingCoordination, 'meetingMediaNode' | 'placeMeetingMedia' | 'forgetMeetingMedia'>;
  /**
   * How long a home the database names but Redis does not show live is waited for before it is
   * taken for dead and replaced: a Redis that lost its data shows no node until each re-registers
   * at its next heartbeat. @default 0
   */
  homeGraceMs?: number;
  /** Pause between two looks at a home being waited for. @default 100 */
  pollMs?: number;
}

/**
 * Placement of meetings on media nodes. With `coordination`, the database records each meeting's
 * one home (compare-and-set, so concurrent placements agree) and Redis caches it; without, Redis
 * holds it alone.
 */
export function createMediaPlacement(
  redis: Redis,
  keys: ClusterKeys,
  options: MediaPlacementOptions = {},
): MediaPlacement {
  const { coordination } = options;
  const homeGraceMs = options.homeGraceMs ?? 0;
  const pollMs = options.pollMs ?? 100;
  const isLive = async (nodeId: string) => (await redis.exists(keys.mediaNode(nodeId))) === 1;
  /** Whether `nodeId` is live now or registers again within the grace. */
  const becomesLive = async (nodeId: string) => {
    const deadline = Date.now() + homeGraceMs;
    for (;;) {
      if (await isLive(nodeId)) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };
  /**
   * Caches the home in Redis, unless Redis names another live node: that node announced the meeting
   * as its own, and it refuses this one's calls, which the caller then sends there.
   */
  const cache = async (meetingId: string, nodeId: string) => {
    const current = await redis.get(keys.placement(meetingId));
    if (current !== null && current !== nodeId && (await isLive(current))) return;
    await redis
      .multi()
      .set(keys.placement(meetingId), nodeId)
      .sadd(keys.mediaNodeMeetings(nodeId), meetingId)
      .exec();
  };
  /** The recorded home: the database's when there is one, else Redis's. */
  const recorded = async (meetingId: string) =>
    coordination !== undefined
      ? await coordination.meetingMediaNode(meetingId)
      : ((await redis.get(keys.placement(meetingId))) ?? undefined);

  const find = async (meetingId: string) => {
    const cached = await redis.get(keys.placement(meetingId));
    if (cached !== null && (await isLive(cached))) return cached;
    const home = await recorded(meetingId);
    if (home === undefined || !(await becomesLive(home))) return undefined;
    if (home !== cached) await cache(meetingId, home);
    return home;
  };

  /** Records `chosen` in place of `expected`; the home recorded afterwards (ours or a rival's). */
  const record = async (meetingId: string, chosen: string, expected: string | undefined) => {
    if (coordination !== undefined) {
      const won = await coordination.placeMeetingMedia(meetingId, chosen, expected ?? null);
      // A meeting the database does not know (removed meanwhile): Redis alone places it.
      if (won !== undefined) return won;
    }
    if (expected !== undefined) await redis.eval(DELETE_IF_EQUAL, 1, keys.placement(meetingId), expected);
    const placed = await redis.set(keys.placement(meetingId), chosen, 'NX');
    return placed === 'OK' ? chosen : ((await redis.get(keys.placement(meetingId))) ?? undefined);
  };

  return {
    find,
    isLive,
    async place(meetingId) {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const home = await recorded(meetingId);
        if (home !== undefined && (await becomesLive(home))) {
          await cache(meetingId, home);
          return home;
        }
        // No home, or its node died: a new placement replaces the dead one (only that one, atomically).
        const chosen = leastLoaded(await liveMediaNodes(redis, keys));
        if (chosen === undefined) {
          throw new ChatError(
            'media_unavailable',
            'no media node can take this meeting now: every one is full or none is running; retry later',
            { details: { retryAfterSeconds: RETRY_AFTER_SECONDS } },
          );
        }
        const won = await record(meetingId, chosen.id, home);
        if (won === chosen.id) {
          await cache(meetingId, chosen.id);
          return chosen.id;
        }
      }
      throw new ChatError('media_failed', 'could not agree on a media node for this meeting');
    },
    async forget(meetingId, nodeId) {
      await redis.eval(DELETE_IF_EQUAL, 1, keys.placement(meetingId), nodeId);
      await redis.srem(keys.mediaNodeMeetings(nodeId), meetingId);
      await coordination?.forgetMeetingMedia(meetingId, nodeId);
    },
  };
}
