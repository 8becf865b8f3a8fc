import { ChatError } from '../errors.js';
import { parseInput } from '../inputs.js';
import type { Actor } from '../model.js';
import type { RoomObserver } from '../ports/room-observer.js';
import type { MeetingContext } from './meeting-context.js';
import { joinSettingsSchema, queueIdSchema } from './meeting-inputs.js';
import type { JoinMeetingResult, MeetingRecord } from './meeting-model.js';
import { isExpired, planJoin } from './meeting-rules.js';

/** What participation needs of the lifecycle. */
export interface LifecycleInternals {
  stopNow(meeting: MeetingRecord, reason?: undefined, fence?: number): Promise<MeetingRecord>;
  deleteNow(meeting: MeetingRecord, fence: number | undefined): Promise<void>;
}

/** Joining and leaving: by request, by a closed `/events` session, by leaving the room. */
export function createMeetingParticipation(context: MeetingContext, lifecycle: LifecycleInternals) {
  const { store, clock, media } = context;

  /**
   * Removes a participant (only the session of `queueId` when given), tells the room, and stops the
   * meeting when nobody is left; an expired scheduled meeting then goes. Call under the meeting's lock.
   */
  async function removeNow(
    meeting: MeetingRecord,
    userId: string,
    queueId: string | undefined,
    fence: number | undefined,
  ): Promise<void> {
    if (!(await store.deleteParticipant(meeting.id, userId, queueId, fence))) return;
    await context.background(`closing the media of ${userId}`, () =>
      media.removeParticipant(meeting.id, userId),
    );
    await context.notify(await context.roomMembers(meeting.roomId, userId), {
      type: 'MEETING_PARTICIPANT_LEFT',
      meetingId: meeting.id,
      userId,
    });
    if ((await store.listParticipants(meeting.id)).length > 0) return;
    const stopped = await lifecycle.stopNow(
      (await store.getMeeting(meeting.id)) ?? meeting,
      undefined,
      fence,
    );
    if (isExpired(stopped, clock.now())) await lifecycle.deleteNow(stopped, fence);
  }

  async function joinMeeting(
    actor: Actor,
    meetingId: string,
    rawQueueId: string | undefined,
    body: unknown,
  ): Promise<JoinMeetingResult> {
    const { meeting } = await context.meetingAsMember(actor, meetingId);
    if (rawQueueId === undefined) {
      throw new ChatError(
        'invalid_input',
        'invalid join: `queue-id` header: expected the queueId of your /events session but received nothing',
      );
    }
    const queueId = parseInput(queueIdSchema, rawQueueId, 'queue-id header');
    parseInput(joinSettingsSchema, body, 'join settings');
    return context.locked(meeting.id, async (fence) => {
      const current = (await store.getMeeting(meeting.id)) ?? meeting;
      const participants = await store.listParticipants(meeting.id);
      const existing = participants.find((participant) => participant.userId === actor.userId);
      const plan = planJoin(current, existing, queueId, participants.length, context.limits.maxParticipants);
      if (plan.kind === 'clash') await replaceSession(current, plan.previous.queueId, actor.userId);
      try {
        await context.mediaCall('add the participant', () => media.addParticipant(meeting.id, actor.userId));
      } catch (error) {
        if (plan.kind === 'clash') await store.deleteParticipant(meeting.id, actor.userId, undefined, fence);
        throw error;
      }
      const participant = {
        userId: actor.userId,
        queueId,
        audioStreamEnabled: false,
        videoStreamEnabled: false,
        screenStreamEnabled: false,
        joinedAt: clock.now(),
      };
      try {
        await store.putParticipant(meeting.id, participant, fence);
      } catch (error) {
        await context.background(`undoing the media of a refused join of ${actor.userId}`, () =>
          undoMedia(meeting.id, actor.userId),
        );
        throw error;
      }
      await context.notify(await context.roomMembers(meeting.roomId), {
        type: 'MEETING_PARTICIPANT_JOINED',
        meetingId: meeting.id,
        userId: actor.userId,
      });
      for (const talkingId of media.talkingParticipants(meeting.id)) {
        await context.notify([{ userId: actor.userId, queueId }], {
          type: 'MEETING_PARTICIPANT_TALKING',
          meetingId: meeting.id,
          userId: talkingId,
          isTalking: true,
        });
      }
      const dominantSpeaker = media.dominantSpeaker(meeting.id);
      if (dominantSpeaker !== undefined) {
        await context.notify([{ userId: actor.userId, queueId }], {
          type: 'MEETING_DOMINANT_SPEAKER',
          meetingId: meeting.id,
          userId: dominantSpeaker,
        });
      }
      return { status: 'ACCEPTED', iceServers: media.iceServers() };
    });
  }

  /** Ends the user's session on `oldQueueId`: its media goes, the room hears it left, the old queue is told. */
  async function replaceSession(meeting: MeetingRecord, oldQueueId: string, userId: string): Promise<void> {
    await context.background(`closing the media of ${userId}`, () =>
      media.removeParticipant(meeting.id, userId),
    );
    await context.notify(await context.roomMembers(meeting.roomId), {
      type: 'MEETING_PARTICIPANT_LEFT',
      meetingId: meeting.id,
      userId,
    });
    await context.notify([{ userId, queueId: oldQueueId }], {
      type: 'MEETING_PARTICIPANT_CLASHED',
      meetingId: meeting.id,
    });
  }

  /**
   * Takes back the media of a join whose participant could not be written (its lock was fenced):
   * unless the user is a participant now, and the meeting's media too when it is no longer active.
   */
  async function undoMedia(meetingId: string, userId: string): Promise<void> {
    if ((await store.getParticipant(meetingId, userId)) !== undefined) return;
    await media.removeParticipant(meetingId, userId);
    const meeting = await store.getMeeting(meetingId);
    if (meeting !== undefined && !meeting.active) await media.closeMeeting(meetingId);
  }

  async function leaveMeeting(actor: Actor, meetingId: string): Promise<void> {
    const { meeting } = await context.meetingAsMember(actor, meetingId);
    await context.locked(meeting.id, (fence) => removeNow(meeting, actor.userId, undefined, fence));
  }

  async function queueClosed(userId: string, queueId: string): Promise<void> {
    const meetingIds = await store.findMeetingsOfQueue(userId, queueId);
    for (const meetingId of meetingIds) {
      await context.locked(meetingId, async (fence) => {
        const meeting = await store.getMeeting(meetingId);
        if (meeting !== undefined) await removeNow(meeting, userId, queueId, fence);
      });
    }
  }

  const roomObserver: RoomObserver = {
    async roomDeleting(roomId) {
      const meeting = await store.getMeetingOfRoom(roomId);
      if (meeting !== undefined)
        await context.locked(meeting.id, (fence) => lifecycle.deleteNow(meeting, fence));
    },
    async memberRemoved(roomId, userId) {
      const meeting = await store.getMeetingOfRoom(roomId);
      if (meeting !== undefined) {
        await context.locked(meeting.id, (fence) => removeNow(meeting, userId, undefined, fence));
      }
    },
  };

  return { joinMeeting, leaveMeeting, queueClosed, roomObserver };
}
