import { ChatError, isChatError, roomNotFound } from '../errors.js';
import type { ChatEventPayload } from '../events.js';
import { parseId } from '../ids.js';
import type { Actor, MemberRecord, RoomRecord } from '../model.js';
import { hasMeetingCoordination } from '../ports/meeting-coordination.js';
import { requireMember } from '../room-rules.js';
import type { KeyedLock } from '../service/keyed-lock.js';
import type { MeetingEventPayload } from './meeting-events.js';
import type { MeetingRecord, ParticipantRecord } from './meeting-model.js';
import type { ResolvedMeetingServiceOptions } from './meeting-options.js';

/** A meeting with its room and the caller's membership. */
export interface MeetingAccess {
  meeting: MeetingRecord;
  room: RoomRecord;
  caller: MemberRecord;
}

/** One recipient of an event: all of a user's sessions, or one queue. */
export interface Recipient {
  userId: string;
  queueId?: string;
}

/** What the meeting operations share. */
export interface MeetingContext extends ResolvedMeetingServiceOptions {
  /** Serialises lifecycle and participation changes per meeting within this process. */
  locks: KeyedLock;
  /**
   * Runs `task` under the meeting's lock with the fencing token claimed for it (undefined without
   * `fencing`), once `admit` let it; pass the token to the store's writes.
   */
  locked<T>(meetingId: string, task: (fence: number | undefined) => Promise<T>): Promise<T>;
  /**
   * Throws when the lock whose token is `fence` passed to another holder since (nothing to check
   * without a token): before an action the database cannot refuse, like closing media.
   * @throws ChatError `dependency_unavailable`
   */
  requireFence(meetingId: string, fence: number | undefined): Promise<void>;
  /** @throws ChatError `meeting_not_found`, `not_a_member` */
  meetingAsMember(actor: Actor, meetingId: string): Promise<MeetingAccess>;
  /** @throws ChatError `room_not_found`, `not_a_member` */
  roomAsMember(actor: Actor, roomId: string): Promise<{ room: RoomRecord; caller: MemberRecord }>;
  /** The caller's participant row. @throws ChatError `participant_not_found` */
  requireParticipant(meeting: MeetingRecord, userId: string): Promise<ParticipantRecord>;
  /** Publishes an event after a committed change; failures go to `onBackgroundError`. */
  notify(recipients: readonly Recipient[], payload: MeetingEventPayload): Promise<void>;
  /** The room's members as recipients, plus `extra` user ids. */
  roomMembers(roomId: string, ...extra: string[]): Promise<Recipient[]>;
  /** The meeting's participants as recipients. */
  participants(meetingId: string): Promise<Recipient[]>;
  /** Runs media work; failures that are not ChatErrors become `media_failed`. */
  mediaCall<T>(what: string, work: () => Promise<T>): Promise<T>;
  /** Runs cleanup whose failure must not undo a committed change: it goes to `onBackgroundError`. */
  background(what: string, work: () => Promise<unknown>): Promise<void>;
}

/** Builds the {@link MeetingContext}. */
export function createMeetingContext(options: ResolvedMeetingServiceOptions): MeetingContext {
  const { store, events, clock, onBackgroundError } = options;

  const roomAsMember = async (actor: Actor, rawRoomId: string) => {
    const roomId = parseId(rawRoomId, 'room_not_found', 'room');
    const room = await store.getRoom(roomId);
    if (room === undefined) {
      throw roomNotFound(roomId);
    }
    return { room, caller: requireMember(room, await store.getMember(roomId, actor.userId)) };
  };

  const coordination = hasMeetingCoordination(store) ? store : undefined;
  return {
    ...options,
    roomAsMember,
    locked(meetingId, task) {
      return options.locks.run(meetingId, async () => {
        const fence = options.fencing ? await coordination?.claimMeetingFence(meetingId) : undefined;
        options.admit();
        return task(fence);
      });
    },
    async requireFence(meetingId, fence) {
      if (fence !== undefined) await coordination?.requireMeetingFence(meetingId, fence);
    },
    async meetingAsMember(actor, rawMeetingId) {
      const meetingId = parseId(rawMeetingId, 'meeting_not_found', 'meeting');
      const meeting = await store.getMeeting(meetingId);
      const room = meeting && (await store.getRoom(meeting.roomId));
      if (meeting === undefined || room === undefined) {
        throw new ChatError(
          'meeting_not_found',
          `expected an existing meeting but ${meetingId} does not exist`,
        );
      }
      return { meeting, room, caller: requireMember(room, await store.getMember(room.id, actor.userId)) };
    },
    async requireParticipant(meeting, userId) {
      const participant = await store.getParticipant(meeting.id, userId);
      if (participant === undefined) {
        throw new ChatError(
          'participant_not_found',
          `expected ${userId} to be a participant of meeting ${meeting.id} but they have not joined it`,
        );
      }
      return participant;
    },
    async notify(recipients, payload) {
      if (recipients.length === 0) return;
      const event = { ...payload, sentDate: clock.now().toISOString() } as ChatEventPayload & {
        sentDate: string;
      };
      try {
        await events.publish(recipients.map((recipient) => ({ ...recipient, event })));
      } catch (error) {
        onBackgroundError(error, `publishing ${payload.type}`);
      }
    },
    async roomMembers(roomId, ...extra) {
      const ids = new Set([...(await store.listMembers(roomId)).map((member) => member.userId), ...extra]);
      return [...ids].map((userId) => ({ userId }));
    },
    async participants(meetingId) {
      return (await store.listParticipants(meetingId)).map(({ userId }) => ({ userId }));
    },
    async mediaCall(what, work) {
      try {
        return await work();
      } catch (error) {
        if (isChatError(error)) throw error;
        throw new ChatError('media_failed', `expected the media server to ${what} but it failed`, {
          cause: error,
        });
      }
    },
    async background(what, work) {
      try {
        await work();
      } catch (error) {
        onBackgroundError(error, what);
      }
    },
  };
}
