import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { meetingSetup } from './meeting-support.js';

const sortedIds = (...actors: { userId: string }[]) => actors.map((actor) => actor.userId).sort();

describe('meeting lifecycle', () => {
  it('creates one inactive meeting per room, links the room and tells its members', async () => {
    const { meetings, chat, room, alice, bob, carol, recipients } = await meetingSetup();
    const meeting = await meetings.createMeeting(bob, { roomId: room.id, name: 'Daily' });
    expect(meeting).toEqual({
      id: expect.any(String),
      name: 'Daily',
      roomId: room.id,
      active: false,
      participants: [],
      createdAt: '2024-06-01T08:00:00.000Z',
      meetingType: 'permanent',
    });
    expect((await chat.getRoom(alice, room.id)).meetingId).toBe(meeting.id);
    expect(recipients('MEETING_CREATED')).toEqual(sortedIds(alice, bob, carol));
    await expect(meetings.createMeeting(alice, { roomId: room.id })).rejects.toMatchObject({
      code: 'meeting_exists',
    });
  });

  it('refuses a missing roomId, strangers, unknown rooms and past expirations', async () => {
    const { meetings, room, alice, dave } = await meetingSetup();
    await expect(meetings.createMeeting(alice, { name: 'x' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(meetings.createMeeting(dave, { roomId: room.id })).rejects.toMatchObject({
      code: 'not_a_member',
    });
    await expect(meetings.createMeeting(alice, { roomId: randomUUID() })).rejects.toMatchObject({
      code: 'room_not_found',
    });
    await expect(
      meetings.createMeeting(alice, {
        roomId: room.id,
        meetingType: 'scheduled',
        expiration: '2024-06-01T07:00:00Z',
      }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('expected a time after now'),
    });
  });

  it('names a meeting after its room by default and lists the meetings of the caller rooms', async () => {
    const { meetings, room, alice, dave } = await meetingSetup();
    const meeting = await meetings.createMeeting(alice, { roomId: room.id, meetingType: 'SCHEDULED' });
    expect(meeting.name).toBe('Team');
    expect(meeting.meetingType).toBe('scheduled');
    expect((await meetings.listMeetings(alice)).map((listed) => listed.id)).toEqual([meeting.id]);
    expect(await meetings.listMeetings(dave)).toEqual([]);
    expect((await meetings.getRoomMeeting(alice, room.id)).id).toBe(meeting.id);
    await expect(meetings.getMeeting(dave, meeting.id)).rejects.toMatchObject({ code: 'not_a_member' });
    await expect(meetings.getMeeting(alice, 'not-a-uuid')).rejects.toMatchObject({
      code: 'meeting_not_found',
    });
  });

  it('starts with startedAt and MEETING_STARTED, start again changes nothing, stop clears it', async () => {
    const { meetings, room, alice, bob, clock, media, sent } = await meetingSetup();
    const meeting = await meetings.createMeeting(alice, { roomId: room.id });
    clock.advance(60_000);
    const started = await meetings.startMeeting(bob, meeting.id);
    expect(started).toMatchObject({ active: true, startedAt: '2024-06-01T08:01:00.000Z' });
    expect(sent('MEETING_STARTED')[0]?.event).toMatchObject({
      meetingId: meeting.id,
      starterUser: bob.userId,
      startedAt: '2024-06-01T08:01:00.000Z',
    });
    expect(media.meetings.has(meeting.id)).toBe(true);
    clock.advance(1000);
    expect((await meetings.startMeeting(alice, meeting.id)).startedAt).toBe('2024-06-01T08:01:00.000Z');
    expect(sent('MEETING_STARTED')).toHaveLength(3);
    const stopped = await meetings.stopMeeting(alice, meeting.id);
    expect(stopped.active).toBe(false);
    expect(stopped).not.toHaveProperty('startedAt');
    expect(media.meetings.has(meeting.id)).toBe(false);
    expect(sent('MEETING_STOPPED')).toHaveLength(3);
  });

  it('deletes a running meeting, closing its media; deleting the room deletes its meeting', async () => {
    const { meetings, chat, room, alice, bob, media, startedMeeting, join, recipients } =
      await meetingSetup();
    const meeting = await startedMeeting();
    await join(bob, meeting.id);
    await meetings.deleteMeeting(bob, meeting.id);
    expect(media.meetings.has(meeting.id)).toBe(false);
    expect(recipients('MEETING_DELETED')).toHaveLength(3);
    expect((await chat.getRoom(alice, room.id)).meetingId).toBeUndefined();
    await expect(meetings.getMeeting(alice, meeting.id)).rejects.toMatchObject({ code: 'meeting_not_found' });

    const again = await startedMeeting();
    await join(bob, again.id);
    await chat.deleteRoom(alice, room.id);
    expect(media.meetings.has(again.id)).toBe(false);
    expect(recipients('MEETING_DELETED')).toHaveLength(6);
    expect(await meetings.listMeetings(alice)).toEqual([]);
  });

  it('removes scheduled meetings after their expiration once nobody is in them', async () => {
    const { meetings, room, alice, bob, clock, join, sent } = await meetingSetup();
    const scheduled = await meetings.createMeeting(alice, {
      roomId: room.id,
      meetingType: 'scheduled',
      expiration: '2024-06-01T09:00:00Z',
    });
    expect(scheduled.expiration).toBe('2024-06-01T09:00:00.000Z');
    expect(await meetings.removeExpiredMeetings()).toBe(0);
    await meetings.startMeeting(alice, scheduled.id);
    await join(bob, scheduled.id);
    clock.advance(2 * 3_600_000);
    expect(await meetings.removeExpiredMeetings()).toBe(0);
    await meetings.leaveMeeting(bob, scheduled.id);
    expect(sent('MEETING_DELETED')).toHaveLength(3);
    await expect(meetings.getMeeting(alice, scheduled.id)).rejects.toMatchObject({
      code: 'meeting_not_found',
    });
  });

  it('sweeps expired scheduled meetings and keeps permanent ones', async () => {
    const { meetings, chat, room, alice, bob, clock } = await meetingSetup();
    const other = await chat.createRoom(alice, {
      type: 'group',
      name: 'Other',
      membersIds: [bob.userId, randomUUID()],
    });
    await meetings.createMeeting(alice, {
      roomId: room.id,
      meetingType: 'scheduled',
      expiration: '2024-06-01T08:30:00Z',
    });
    const permanent = await meetings.createMeeting(alice, {
      roomId: other.id,
      expiration: '2024-06-01T08:30:00Z',
    });
    expect(permanent).not.toHaveProperty('expiration');
    clock.advance(3_600_000);
    expect(await meetings.removeExpiredMeetings()).toBe(1);
    expect((await meetings.listMeetings(alice)).map((meeting) => meeting.id)).toEqual([permanent.id]);
  });

  it('sweeps more expired meetings than expiredBatch in several batches, skipping an active one', async () => {
    const { meetings, chat, alice, bob, clock, join } = await meetingSetup({ expiredBatch: 2 });
    const scheduled = [];
    for (const name of ['One', 'Two', 'Three', 'Four']) {
      const room = await chat.createRoom(alice, {
        type: 'group',
        name,
        membersIds: [bob.userId, randomUUID()],
      });
      scheduled.push(
        await meetings.createMeeting(alice, {
          roomId: room.id,
          meetingType: 'scheduled',
          expiration: '2024-06-01T08:30:00Z',
        }),
      );
    }
    const busy = scheduled[3]?.id ?? '';
    await meetings.startMeeting(alice, busy);
    await join(bob, busy);
    clock.advance(3_600_000);
    expect(await meetings.removeExpiredMeetings()).toBe(3);
    expect((await meetings.listMeetings(alice)).map((meeting) => meeting.id)).toEqual([busy]);
  });

  it('stops meetings left active by a previous run', async () => {
    const { meetings, alice, bob, startedMeeting, join } = await meetingSetup();
    const meeting = await startedMeeting();
    await join(bob, meeting.id);
    expect(await meetings.stopAllActive()).toBe(1);
    expect(await meetings.getMeeting(alice, meeting.id)).toMatchObject({ active: false, participants: [] });
  });
});
