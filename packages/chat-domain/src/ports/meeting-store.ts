import type {
  MeetingRecord,
  ParticipantRecord,
  ParticipantStreamChanges,
} from '../meetings/meeting-model.js';

/**
 * Persistence of meetings and their participants, part of {@link ChatStore}. A meeting belongs to
 * one room (at most one per room) and goes when its room goes; its participants go with it.
 */
export interface MeetingStore {
  /**
   * Inserts a meeting and links it to its room (`meetingId` of the room).
   * @throws ChatError `meeting_exists` when the room has a meeting, `room_not_found`.
   */
  insertMeeting(meeting: MeetingRecord): Promise<void>;
  getMeeting(meetingId: string): Promise<MeetingRecord | undefined>;
  getMeetingOfRoom(roomId: string): Promise<MeetingRecord | undefined>;
  /** Meetings of the rooms where `userId` is a member, oldest first (createdAt, then id). */
  listMeetingsOfUser(userId: string): Promise<MeetingRecord[]>;
  /** Active meetings, oldest first. */
  listActiveMeetings(): Promise<MeetingRecord[]>;
  /** Scheduled meetings that are not active and whose expiration is at or before `now`, oldest first. */
  listExpiredMeetings(now: Date, limit: number): Promise<MeetingRecord[]>;
  /**
   * Starts (`startedAt` set) or stops (`null`) a meeting; stopping removes every participant in
   * the same transaction. Returns the updated meeting, or undefined when it does not exist.
   * `fence`: see {@link MeetingStore.putParticipant}.
   */
  setMeetingStarted(
    meetingId: string,
    startedAt: Date | null,
    fence?: number,
  ): Promise<MeetingRecord | undefined>;
  /**
   * Deletes a meeting and its participants and unlinks its room; false if absent.
   * `fence`: see {@link MeetingStore.putParticipant}.
   * @throws ChatError `dependency_unavailable` (an older fence)
   */
  deleteMeeting(meetingId: string, fence?: number): Promise<boolean>;

  /** Participants in the order they joined (then by user id). */
  listParticipants(meetingId: string): Promise<ParticipantRecord[]>;
  /** Participants of several meetings at once, by meeting id (meetings without any are absent). */
  listParticipantsOfMeetings(meetingIds: readonly string[]): Promise<Map<string, ParticipantRecord[]>>;
  getParticipant(meetingId: string, userId: string): Promise<ParticipantRecord | undefined>;
  /**
   * Inserts a participant, or replaces the user's row (a rejoin from another queue). With a `fence`
   * (a token from `MeetingCoordination.claimMeetingFence`), a store that coordinates several
   * processes writes only while no newer token was issued; the others ignore it.
   * @throws ChatError `meeting_not_found`, `dependency_unavailable` (an older fence)
   */
  putParticipant(meetingId: string, participant: ParticipantRecord, fence?: number): Promise<void>;
  /**
   * Changes stream flags; returns the updated participant or undefined when absent.
   * `fence`: see {@link MeetingStore.putParticipant}.
   * @throws ChatError `dependency_unavailable` (an older fence)
   */
  updateParticipantStreams(
    meetingId: string,
    userId: string,
    changes: ParticipantStreamChanges,
    fence?: number,
  ): Promise<ParticipantRecord | undefined>;
  /**
   * Removes a participant, only if it joined from `queueId` when given; false if nothing was removed.
   * `fence`: see {@link MeetingStore.putParticipant}.
   */
  deleteParticipant(meetingId: string, userId: string, queueId?: string, fence?: number): Promise<boolean>;
  /** Ids of the meetings the user joined from this queue. */
  findMeetingsOfQueue(userId: string, queueId: string): Promise<string[]>;
}
