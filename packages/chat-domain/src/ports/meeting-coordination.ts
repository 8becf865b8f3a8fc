/**
 * What API nodes sharing one database agree on through it, part of the PostgreSQL store: the media
 * node each meeting lives on (its one home) and the fencing token of each meeting's lock. The
 * database is the source of truth; a cache (Redis) may hold copies.
 */
export interface MeetingCoordination {
  /** The media node recorded as the meeting's home; undefined when it has none or does not exist. */
  meetingMediaNode(meetingId: string): Promise<string | undefined>;
  /**
   * Records `nodeId` as the meeting's home only while the recorded home is `expected` (null: none),
   * so two API nodes placing one meeting at once agree. Returns the home recorded afterwards (this
   * node or the one that won), or undefined when the meeting does not exist.
   */
  placeMeetingMedia(meetingId: string, nodeId: string, expected: string | null): Promise<string | undefined>;
  /** Clears the meeting's home while it is still `nodeId`. */
  forgetMeetingMedia(meetingId: string, nodeId: string): Promise<void>;
  /** The media nodes recorded as the home of an active meeting. */
  listMediaHomes(): Promise<string[]>;
  /** The meetings whose recorded home is `nodeId`. */
  listMeetingsOnMediaNode(nodeId: string): Promise<string[]>;
  /**
   * Issues the next fencing token of the meeting's lock (one more than the last issued) and returns
   * it; undefined when the meeting does not exist. A write carrying an older token is refused.
   */
  claimMeetingFence(meetingId: string): Promise<number | undefined>;
  /**
   * Throws when a token newer than `fence` was issued for the meeting since: the lock passed to
   * another holder, who may have acted. For an action that does not land in the database (closing
   * a meeting's media) made before a fenced write.
   * @throws ChatError `dependency_unavailable`
   */
  requireMeetingFence(meetingId: string, fence: number): Promise<void>;
}

/** True when `store` also implements {@link MeetingCoordination} (the PostgreSQL store does). */
export function hasMeetingCoordination<Store extends object>(
  store: Store,
): store is Store & MeetingCoordination {
  const candidate = store as Partial<MeetingCoordination>;
  return (
    typeof candidate.claimMeetingFence === 'function' && typeof candidate.placeMeetingMedia === 'function'
  );
}
