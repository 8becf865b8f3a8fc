import { ChatError, roomNotFound } from '../errors.js';
import type { MeetingRecord, ParticipantRecord } from '../meetings/meeting-model.js';
import type { MeetingStore } from '../ports/meeting-store.js';

/** What the in-memory meeting queries need of the room maps of the memory store. */
export interface MemoryRoomAccess {
  roomExists(roomId: string): boolean;
  roomIdsOfUser(userId: string): Iterable<string>;
  setRoomMeetingId(roomId: string, meetingId: string | null): void;
}

const byCreation = (left: MeetingRecord, right: MeetingRecord) =>
  left.createdAt.getTime() - right.createdAt.getTime() ||
  (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);
const byJoin = (left: ParticipantRecord, right: ParticipantRecord) =>
  left.joinedAt.getTime() - right.joinedAt.getTime() ||
  (left.userId < right.userId ? -1 : left.userId > right.userId ? 1 : 0);

/** Meeting queries of the memory store, plus the cascade its room deletion calls. */
export function createMemoryMeetingQueries(
  rooms: MemoryRoomAccess,
): MeetingStore & { deleteMeetingsOfRoom(roomId: string): void } {
  const meetings = new Map<string, MeetingRecord>();
  const meetingOfRoom = new Map<string, string>();
  const participants = new Map<string, Map<string, ParticipantRecord>>();
  const copy = (meeting: MeetingRecord | undefined) => meeting && { ...meeting };
  const listOf = (meetingId: string) =>
    [...(participants.get(meetingId)?.values() ?? [])]
      .sort(byJoin)
      .map((participant) => ({ ...participant }));

  const deleteMeeting = (meetingId: string): boolean => {
    const meeting = meetings.get(meetingId);
    if (meeting === undefined) return false;
    meetings.delete(meetingId);
    participants.delete(meetingId);
    meetingOfRoom.delete(meeting.roomId);
    if (rooms.roomExists(meeting.roomId)) rooms.setRoomMeetingId(meeting.roomId, null);
    return true;
  };

  return {
    deleteMeetingsOfRoom(roomId) {
      const meetingId = meetingOfRoom.get(roomId);
      if (meetingId !== undefined) deleteMeeting(meetingId);
    },
    async insertMeeting(meeting) {
      if (!rooms.roomExists(meeting.roomId)) {
        throw roomNotFound(meeting.roomId);
      }
      if (meetingOfRoom.has(meeting.roomId)) {
        throw new ChatError('meeting_exists', `expected no meeting in room ${meeting.roomId} but it has one`);
      }
      meetings.set(meeting.id, { ...meeting });
      meetingOfRoom.set(meeting.roomId, meeting.id);
      participants.set(meeting.id, new Map());
      rooms.setRoomMeetingId(meeting.roomId, meeting.id);
    },
    async getMeeting(meetingId) {
      return copy(meetings.get(meetingId));
    },
    async getMeetingOfRoom(roomId) {
      const meetingId = meetingOfRoom.get(roomId);
      return meetingId === undefined ? undefined : copy(meetings.get(meetingId));
    },
    async listMeetingsOfUser(userId) {
      return [...rooms.roomIdsOfUser(userId)]
        .flatMap((roomId) => {
          const meetingId = meetingOfRoom.get(roomId);
          const meeting = meetingId === undefined ? undefined : meetings.get(meetingId);
          return meeting ? [{ ...meeting }] : [];
        })
        .sort(byCreation);
    },
    async listActiveMeetings() {
      return [...meetings.values()]
        .filter((meeting) => meeting.active)
        .sort(byCreation)
        .map((meeting) => ({ ...meeting }));
    },
    async listExpiredMeetings(now, limit) {
      return [...meetings.values()]
        .filter(
          (meeting) =>
            meeting.meetingType === 'scheduled' &&
            !meeting.active &&
            meeting.expiration !== null &&
            meeting.expiration.getTime() <= now.getTime(),
        )
        .sort(byCreation)
        .slice(0, limit)
        .map((meeting) => ({ ...meeting }));
    },
    async setMeetingStarted(meetingId, startedAt) {
      const meeting = meetings.get(meetingId);
      if (meeting === undefined) return undefined;
      const updated = { ...meeting, active: startedAt !== null, startedAt };
      meetings.set(meetingId, updated);
      if (startedAt === null) participants.set(meetingId, new Map());
      return { ...updated };
    },
    async deleteMeeting(meetingId) {
      return deleteMeeting(meetingId);
    },
    async listParticipants(meetingId) {
      return listOf(meetingId);
    },
    async listParticipantsOfMeetings(meetingIds) {
      const result = new Map<string, ParticipantRecord[]>();
      for (const meetingId of meetingIds) {
        const list = listOf(meetingId);
        if (list.length > 0) result.set(meetingId, list);
      }
      return result;
    },
    async getParticipant(meetingId, userId) {
      const participant = participants.get(meetingId)?.get(userId);
      return participant && { ...participant };
    },
    async putParticipant(meetingId, participant) {
      const list = participants.get(meetingId);
      if (list === undefined) {
        throw new ChatError(
          'meeting_not_found',
          `expected an existing meeting but ${meetingId} does not exist`,
        );
      }
      list.set(participant.userId, { ...participant });
    },
    async updateParticipantStreams(meetingId, userId, changes) {
      const participant = participants.get(meetingId)?.get(userId);
      if (participant === undefined) return undefined;
      for (const [name, value] of Object.entries(changes)) {
        if (value !== undefined) Object.assign(participant, { [name]: value });
      }
      return { ...participant };
    },
    async deleteParticipant(meetingId, userId, queueId) {
      const list = participants.get(meetingId);
      const participant = list?.get(userId);
      if (participant === undefined || (queueId !== undefined && participant.queueId !== queueId))
        return false;
      return list?.delete(userId) ?? false;
    },
    async findMeetingsOfQueue(userId, queueId) {
      return [...participants.entries()]
        .filter(([, list]) => list.get(userId)?.queueId === queueId)
        .map(([meetingId]) => meetingId);
    },
  };
}
