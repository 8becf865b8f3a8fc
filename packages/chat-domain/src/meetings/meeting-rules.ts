import { ChatError } from '../errors.js';
import type { Member, MemberRecord } from '../model.js';
import type {
  EventMediaType,
  MediaType,
  Meeting,
  MeetingRecord,
  Participant,
  ParticipantRecord,
  ParticipantStreamChanges,
} from './meeting-model.js';

/** How a join goes, decided from the user's current row. */
export type JoinPlan =
  | { kind: 'new' }
  /** The user is in the meeting from another queue: that session is replaced. */
  | { kind: 'clash'; previous: ParticipantRecord };

/**
 * Decides a join: the meeting must be active; the same queue twice is a conflict; another queue of
 * the same user replaces the old session; a new participant needs room.
 * @throws ChatError `meeting_not_active`, `already_participant`, `meeting_full`
 */
export function planJoin(
  meeting: MeetingRecord,
  existing: ParticipantRecord | undefined,
  queueId: string,
  participantCount: number,
  maxParticipants: number,
): JoinPlan {
  if (!meeting.active) {
    throw new ChatError(
      'meeting_not_active',
      `expected an active meeting to join but meeting ${meeting.id} is not started: start it first`,
    );
  }
  if (existing?.queueId === queueId) {
    throw new ChatError(
      'already_participant',
      `expected to join meeting ${meeting.id} once per queue but queue ${queueId} already joined it`,
    );
  }
  if (existing !== undefined) return { kind: 'clash', previous: existing };
  if (participantCount >= maxParticipants) {
    throw new ChatError(
      'meeting_full',
      `expected at most ${maxParticipants} participants but meeting ${meeting.id} is full`,
      { details: { limit: maxParticipants } },
    );
  }
  return { kind: 'new' };
}

/**
 * Who `PUT /audio` changes: the caller, or with `userToModerate` another participant, which only
 * an owner of the room may do and only to mute.
 * @throws ChatError `operation_not_allowed`, `not_an_owner`
 */
export function audioTarget(
  caller: MemberRecord,
  settings: { enabled: boolean; userToModerate?: string | undefined },
): { userId: string; moderatorId?: string } {
  const target = settings.userToModerate;
  if (target === undefined || target === caller.userId) return { userId: caller.userId };
  if (settings.enabled) {
    throw new ChatError(
      'operation_not_allowed',
      'expected `enabled: false` with `userToModerate`: a moderator may mute another participant, never unmute them',
    );
  }
  if (!caller.owner) {
    throw new ChatError(
      'not_an_owner',
      'expected a room owner to mute another participant but the caller is not one',
    );
  }
  return { userId: target, moderatorId: caller.userId };
}

/** The participant flag of a media type. */
export function streamFlag(type: MediaType): keyof ParticipantStreamChanges {
  return type === 'video' ? 'videoStreamEnabled' : 'screenStreamEnabled';
}

/** How events spell a media type. */
export function eventMediaType(type: MediaType): EventMediaType {
  return type === 'video' ? 'VIDEO' : 'SCREEN';
}

/** Whether a scheduled meeting is past its expiration at `now`; permanent ones never are. */
export function isExpired(meeting: MeetingRecord, now: Date): boolean {
  return (
    meeting.meetingType === 'scheduled' &&
    meeting.expiration !== null &&
    meeting.expiration.getTime() <= now.getTime()
  );
}

/** A participant as the API shows it; owners of the room are moderators. */
export function participantView(participant: ParticipantRecord, ownerIds: ReadonlySet<string>): Participant {
  return {
    userId: participant.userId,
    userType: ownerIds.has(participant.userId) ? 'moderator' : 'registered',
    queueId: participant.queueId,
    audioStreamEnabled: participant.audioStreamEnabled,
    videoStreamEnabled: participant.videoStreamEnabled,
    screenStreamEnabled: participant.screenStreamEnabled,
    joinedAt: participant.joinedAt.toISOString(),
  };
}

/** A meeting as the API shows it. */
export function meetingView(
  meeting: MeetingRecord,
  participants: readonly ParticipantRecord[],
  members: readonly (Member | MemberRecord)[],
): Meeting {
  const ownerIds = new Set(members.filter((member) => member.owner).map((member) => member.userId));
  const view: Meeting = {
    id: meeting.id,
    name: meeting.name,
    roomId: meeting.roomId,
    active: meeting.active,
    participants: participants.map((participant) => participantView(participant, ownerIds)),
    createdAt: meeting.createdAt.toISOString(),
    meetingType: meeting.meetingType,
  };
  if (meeting.startedAt !== null) view.startedAt = meeting.startedAt.toISOString();
  if (meeting.expiration !== null) view.expiration = meeting.expiration.toISOString();
  return view;
}
