/**
 * The Redis keys and channels the nodes of one deployment share. Every name starts with `prefix`, so
 * several deployments can use one Redis.
 */
export function clusterKeys(prefix: string) {
  return {
    /** Set of the ids of media nodes that registered and were not yet found dead. */
    mediaNodes: `${prefix}media-nodes`,
    /** A media node's last heartbeat (JSON {@link MediaNodeInfo}); expires when heartbeats stop. */
    mediaNode: (nodeId: string) => `${prefix}media-node:${nodeId}`,
    /** Set of the meetings placed on a media node. */
    mediaNodeMeetings: (nodeId: string) => `${prefix}media-node:${nodeId}:meetings`,
    /** Taken (SET NX) by the one API node that handles a media node's death. */
    mediaNodeBuried: (nodeId: string) => `${prefix}media-node:${nodeId}:buried`,
    /** Channel of the commands for one media node. */
    mediaCommands: (nodeId: string) => `${prefix}media-node:${nodeId}:commands`,
    /** Channel of the replies for one API node. */
    mediaReplies: (apiNodeId: string) => `${prefix}api-node:${apiNodeId}:media-replies`,
    /** List of media events; each is taken by one API node (BLPOP), which tells the participants. */
    mediaEvents: `${prefix}media-events`,
    /** Channel carrying the same talking events to every API node, for who is talking now. */
    mediaTalking: `${prefix}media-talking`,
    /** The media node a meeting is placed on. */
    placement: (meetingId: string) => `${prefix}meeting-media:${meetingId}`,
    /** A meeting's lock across API nodes. */
    meetingLock: (key: string) => `${prefix}meeting-lock:${key}`,
    /** Set of the ids of API nodes that registered and were not yet found dead. */
    apiNodes: `${prefix}api-nodes`,
    /** An API node's heartbeat; expires when heartbeats stop. */
    apiNode: (nodeId: string) => `${prefix}api-node:${nodeId}`,
    /** Set of `userId queueId` of the `/events` sessions connected to an API node. */
    apiNodeQueues: (nodeId: string) => `${prefix}api-node:${nodeId}:queues`,
    /**
     * The API node that last took over an `/events` session (its client reconnected there with its
     * queue id) and when, `<nodeId> <claimedAtMs>` by Redis's clock; absent while the session stays
     * where it opened.
     */
    queueOwner: (queueId: string) => `${prefix}events-queue:${queueId}:owner`,
    /** Taken (SET NX) by the one API node that handles another API node's death. */
    apiNodeBuried: (nodeId: string) => `${prefix}api-node:${nodeId}:buried`,
  };
}

export type ClusterKeys = ReturnType<typeof clusterKeys>;

/** The default prefix of {@link clusterKeys}. */
export const DEFAULT_CLUSTER_PREFIX = 'collab-suite:cluster:';

/** What a media node says about itself in each heartbeat. */
export interface MediaNodeInfo {
  readonly id: string;
  /** Where its media is reached (its announced or host address), for operators. */
  readonly address: string;
  /** Participants it takes at most. */
  readonly capacity: number;
  /** Participants it holds now: its load. */
  readonly participants: number;
  /** Meetings it holds now. */
  readonly meetings: number;
  readonly heartbeatAt: string;
}

/** A command as it travels to a media node: who wants the reply, and the command. */
export interface RoutedMediaCommand {
  readonly replyTo: string;
  readonly command: { readonly id: number; readonly method: string; readonly args: readonly unknown[] };
}

/** Deletes `key` only while it still holds `value` (one round trip, atomic). */
export const DELETE_IF_EQUAL = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/** Extends `key`'s expiry to ARGV[2] ms only while it still holds ARGV[1]. */
export const EXTEND_IF_EQUAL = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
