import { randomUUID } from 'node:crypto';
import type { MeetingRecord, ParticipantRecord } from '../meetings/meeting-model.js';

/** A permanent, inactive meeting record of `roomId` created at `at`. */
export function meetingFixture(
  roomId: string,
  at: number,
  overrides: Partial<MeetingRecord> = {},
): MeetingRecord {
  return {
    id: randomUUID(),
    roomId,
    name: 'Stand-up',
    meetingType: 'permanent',
    expiration: null,
    active: false,
    startedAt: null,
    createdAt: new Date(at),
    ...overrides,
  };
}

/** A participant record with every stream off, joined at `at`. */
export function participantFixture(userId: string, at: number, queueId = randomUUID()): ParticipantRecord {
  return {
    userId,
    queueId,
    audioStreamEnabled: false,
    videoStreamEnabled: false,
    screenStreamEnabled: false,
    joinedAt: new Date(at),
  };
}
