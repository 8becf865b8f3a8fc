import { ChatError } from '../errors.js';
import { parseInput } from '../inputs.js';
import type { Actor } from '../model.js';
import type { MeetingContext } from './meeting-context.js';
import { newMeetingSchema } from './meeting-inputs.js';
import type { Meeting, MeetingRecord, MeetingStopReason } from './meeting-model.js';
import { isExpired, meetingView } from './meeting-rules.js';

/** Meeting lifecycle: create, list, get, start, stop, delete, expiry and recovery. */
export function createMeetingLifecycle(context: MeetingContext) {
  const { store, clock, media } = context;

  async function view(meeting: MeetingRecord): Promise<Meeting> {
    const [participants, members] = await Promise.all([
      store.listParticipants(meeting.id),
      store.listMembers(meeting.roomId),
    ]);
    return meetingView(meeting, participants, members);
  }

  /** Stops an active meeting: everyone out, media closed, `MEETING_STOPPED`. Call under the meeting's lock. */
  async function stopNow(
    meeting: MeetingRecord,
    reason?: MeetingStopReason,
    fence?: number,
  ): Promise<MeetingRecord> {
    if (!meeting.active) return meeting;
    const stopped = (await store.setMeetingStarted(meeting.id, null, fence)) ?? meeting;
    await context.background(`closing the media of meeting ${meeting.id}`, () =>
      media.closeMeeting(meeting.id),
    );
    await context.notify(await context.roomMembers(meeting.roomId), {
      type: 'MEETING_STOPPED',
      meetingId: meeting.id,
      ...(reason === undefined ? {} : { reason }),
    });
    return stopped;
  }

  /** Stops the meetings whose media is gone, each under its lock, telling their rooms why. */
  async function stopLostMeetings(meetingIds: readonly string[], reason: MeetingStopReason): Promise<void> {
    for (const meetingId of meetingIds) {
      await context.locked(meetingId, async (fence) => {
        const current = await store.getMeeting(meetingId);
        if (current !== undefined) await stopNow(current, reason, fence);
      });
    }
  }

  /**
   * Deletes a meeting, closing its media, and tells the room. Call under the meeting's lock, with
   * its fencing token.
   */
  async function deleteNow(meeting: MeetingRecord, fence: number | undefined): Promise<void> {
    // The media goes first (its node is found from the meeting's record), unless the lock passed
    // to another node meanwhile; the delete itself is fenced too.
    await context.requireFence(meeting.id, fence);
    await context.background(`closing the media of meeting ${meeting.id}`, () =>
      media.closeMeeting(meeting.id),
    );
    const recipients = await context.roomMembers(meeting.roomId);
    if (!(await store.deleteMeeting(meeting.id, fence))) return;
    await context.notify(recipients, { type: 'MEETING_DELETED', meetingId: meeting.id });
  }

  async function createMeeting(actor: Actor, body: unknown): Promise<Meeting> {
    const input = parseInput(newMeetingSchema, body, 'meeting');
    const { room } = await context.roomAsMember(actor, input.roomId);
    const now = clock.now();
    const expiration =
      input.meetingType === 'scheduled' && input.expiration !== undefined ? new Date(input.expiration) : null;
    if (expiration !== null && expiration.getTime() <= now.getTime()) {
      throw new ChatError(
        'invalid_input',
        `invalid meeting: \`expiration\`: expected a time after now (${now.toISOString()}) but received ${input.expiration}`,
      );
    }
    const meeting: MeetingRecord = {
      id: context.createId(),
      roomId: room.id,
      name: input.name ?? room.name,
      meetingType: input.meetingType,
      expiration,
      active: false,
      startedAt: null,
      createdAt: now,
    };
    await store.insertMeeting(meeting);
    await context.notify(await context.roomMembers(room.id), {
      type: 'MEETING_CREATED',
      meetingId: meeting.id,
      roomId: room.id,
    });
    return view(meeting);
  }

  async function listMeetings(actor: Actor): Promise<Meeting[]> {
    const [meetings, rooms] = await Promise.all([
      store.listMeetingsOfUser(actor.userId),
      store.listRoomsOfUser(actor.userId, { members: true, settings: false }),
    ]);
    const participants = await store.listParticipantsOfMeetings(meetings.map((meeting) => meeting.id));
    const membersOfRoom = new Map(rooms.map((listing) => [listing.room.id, listing.members ?? []]));
    return meetings.map((meeting) =>
      meetingView(meeting, participants.get(meeting.id) ?? [], membersOfRoom.get(meeting.roomId) ?? []),
    );
  }

  async function getMeeting(actor: Actor, meetingId: string): Promise<Meeting> {
    return view((await context.meetingAsMember(actor, meetingId)).meeting);
  }

  async function getRoomMeeting(actor: Actor, roomId: string): Promise<Meeting> {
    const { room } = await context.roomAsMember(actor, roomId);
    const meeting = await store.getMeetingOfRoom(room.id);
    if (meeting === undefined) {
      throw new ChatError('meeting_not_found', `expected a meeting in room ${room.id} but it has none`);
    }
    return view(meeting);
  }

  async function startMeeting(actor: Actor, meetingId: string): Promise<Meeting> {
    const { meeting } = await context.meetingAsMember(actor, meetingId);
    return context.locked(meeting.id, async (fence) => {
      const current = (await store.getMeeting(meeting.id)) ?? meeting;
      if (current.active) return view(current);
      await context.mediaCall('open the meeting', () => media.openMeeting(meeting.id));
      const startedAt = clock.now();
      const started = (await store.setMeetingStarted(meeting.id, startedAt, fence)) ?? current;
      await context.notify(await context.roomMembers(meeting.roomId), {
        type: 'MEETING_STARTED',
        meetingId: meeting.id,
        starterUser: actor.userId,
        startedAt: startedAt.toISOString(),
      });
      return view(started);
    });
  }

  async function stopMeeting(actor: Actor, meetingId: string): Promise<Meeting> {
    const { meeting } = await context.meetingAsMember(actor, meetingId);
    return context.locked(meeting.id, async (fence) =>
      view(await stopNow((await store.getMeeting(meeting.id)) ?? meeting, undefined, fence)),
    );
  }

  async function deleteMeeting(actor: Actor, meetingId: string): Promise<void> {
    const { meeting } = await context.meetingAsMember(actor, meetingId);
    await context.locked(meeting.id, (fence) => deleteNow(meeting, fence));
  }

  async function removeExpiredMeetings(): Promise<number> {
    let removed = 0;
    for (;;) {
      const expired = await store.listExpiredMeetings(clock.now(), context.limits.expiredBatch);
      for (const meeting of expired) {
        await context.locked(meeting.id, async (fence) => {
          const current = await store.getMeeting(meeting.id);
          if (current === undefined || current.active || !isExpired(current, clock.now())) return;
          await deleteNow(current, fence);
          removed += 1;
        });
      }
      if (expired.length < context.limits.expiredBatch) return removed;
    }
  }

  async function stopAllActive(): Promise<number> {
    const active = await store.listActiveMeetings();
    for (const meeting of active) {
      await context.locked(meeting.id, (fence) => stopNow(meeting, undefined, fence));
    }
    return active.length;
  }

  return {
    internals: { stopNow, deleteNow, stopLostMeetings },
    operations: {
      createMeeting,
      listMeetings,
      getMeeting,
      getRoomMeeting,
      startMeeting,
      stopMeeting,
      deleteMeeting,
      removeExpiredMeetings,
      stopAllActive,
    },
  };
}
