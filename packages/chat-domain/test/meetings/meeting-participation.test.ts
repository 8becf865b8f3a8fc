import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { meetingSetup } from './meeting-support.js';

describe('joining and leaving meetings', () => {
  it('joins with ACCEPTED and the ICE servers, streams off, and tells the room', async () => {
    const { meetings, alice, bob, startedMeeting, join, recipients, queueOf, media } = await meetingSetup();
    const meeting = await startedMeeting();
    expect(await join(bob, meeting.id)).toEqual({ status: 'ACCEPTED', iceServers: [] });
    expect(recipients('MEETING_PARTICIPANT_JOINED')).toHaveLength(3);
    const participants = (await meetings.getMeeting(alice, meeting.id)).participants;
    expect(participants).toEqual([
      {
        userId: bob.userId,
        userType: 'registered',
        queueId: queueOf(bob),
        audioStreamEnabled: false,
        videoStreamEnabled: false,
        screenStreamEnabled: false,
        joinedAt: '2024-06-01T08:00:00.000Z',
      },
    ]);
    await join(alice, meeting.id);
    const aliceAsParticipant = (await meetings.getMeeting(alice, meeting.id)).participants.find(
      (participant) => participant.userId === alice.userId,
    );
    expect(aliceAsParticipant?.userType).toBe('moderator');
    expect(media.meetings.get(meeting.id)?.size).toBe(2);
  });

  it('refuses a join without or with a malformed queue-id, to an inactive meeting, and twice from one queue', async () => {
    const { meetings, room, alice, bob, dave, join } = await meetingSetup();
    const meeting = await meetings.createMeeting(alice, { roomId: room.id });
    const settings = { audioStreamEnabled: false, videoStreamEnabled: false };
    await expect(meetings.joinMeeting(bob, meeting.id, undefined, settings)).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('queue-id'),
    });
    await expect(meetings.joinMeeting(bob, meeting.id, 'queue', settings)).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(meetings.joinMeeting(bob, meeting.id, randomUUID(), {})).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(join(bob, meeting.id)).rejects.toMatchObject({
      code: 'meeting_not_active',
      message: expect.stringContaining('start it first'),
    });
    await expect(join(dave, meeting.id)).rejects.toMatchObject({ code: 'not_a_member' });
    await expect(join(bob, randomUUID())).rejects.toMatchObject({ code: 'meeting_not_found' });
    await meetings.startMeeting(alice, meeting.id);
    await join(bob, meeting.id);
    await expect(join(bob, meeting.id)).rejects.toMatchObject({ code: 'already_participant' });
  });

  it('replaces the session of a user joining from another queue and tells the old queue it clashed', async () => {
    const { meetings, alice, bob, startedMeeting, join, sent, queueOf, media } = await meetingSetup();
    const meeting = await startedMeeting();
    await join(bob, meeting.id);
    await meetings.offerAudio(bob, meeting.id, { sdp: 'v=0 old' });
    await meetings.updateAudio(bob, meeting.id, { enabled: true });
    const second = randomUUID();
    await join(bob, meeting.id, second);
    const clashed = sent('MEETING_PARTICIPANT_CLASHED');
    expect(clashed.map((delivery) => [delivery.userId, delivery.queueId, delivery.event])).toEqual([
      [bob.userId, queueOf(bob), expect.objectContaining({ meetingId: meeting.id })],
    ]);
    expect(sent('MEETING_PARTICIPANT_LEFT')).toHaveLength(3);
    const [participant] = (await meetings.getMeeting(alice, meeting.id)).participants;
    expect(participant).toMatchObject({ userId: bob.userId, queueId: second, audioStreamEnabled: false });
    expect(media.meetings.get(meeting.id)?.get(bob.userId)?.audioConnected).toBe(false);
  });

  it('leaves silently when not a participant; the last one out stops the meeting', async () => {
    const { meetings, alice, bob, carol, startedMeeting, join, sent, media } = await meetingSetup();
    const meeting = await startedMeeting();
    await meetings.leaveMeeting(carol, meeting.id);
    expect(sent('MEETING_PARTICIPANT_LEFT')).toHaveLength(0);
    await join(alice, meeting.id);
    await join(bob, meeting.id);
    await meetings.leaveMeeting(bob, meeting.id);
    expect(sent('MEETING_PARTICIPANT_LEFT')).toHaveLength(3);
    expect((await meetings.getMeeting(alice, meeting.id)).active).toBe(true);
    await meetings.leaveMeeting(alice, meeting.id);
    expect(sent('MEETING_STOPPED')).toHaveLength(3);
    expect(await meetings.getMeeting(alice, meeting.id)).toMatchObject({ active: false, participants: [] });
    expect(media.meetings.has(meeting.id)).toBe(false);
  });

  it('a closed queue leaves the meetings joined from it, not a newer session of the user', async () => {
    const { meetings, alice, bob, startedMeeting, join, queueOf } = await meetingSetup();
    const meeting = await startedMeeting();
    await join(alice, meeting.id);
    await join(bob, meeting.id);
    await meetings.queueClosed(bob.userId, randomUUID());
    expect((await meetings.getMeeting(alice, meeting.id)).participants).toHaveLength(2);
    await meetings.queueClosed(bob.userId, queueOf(bob));
    expect((await meetings.getMeeting(alice, meeting.id)).participants.map((p) => p.userId)).toEqual([
      alice.userId,
    ]);
    const newer = randomUUID();
    await join(alice, meeting.id, newer);
    await meetings.queueClosed(alice.userId, queueOf(alice));
    expect((await meetings.getMeeting(alice, meeting.id)).participants.map((p) => p.queueId)).toEqual([
      newer,
    ]);
  });

  it('a member removed from the room leaves its meeting', async () => {
    const { meetings, chat, room, alice, bob, startedMeeting, join } = await meetingSetup();
    const meeting = await startedMeeting();
    await join(alice, meeting.id);
    await join(bob, meeting.id);
    await chat.removeMember(alice, room.id, bob.userId);
    expect((await meetings.getMeeting(alice, meeting.id)).participants.map((p) => p.userId)).toEqual([
      alice.userId,
    ]);
  });

  it('tells a joiner who is talking already', async () => {
    const { alice, bob, startedMeeting, join, media, sent, queueOf } = await meetingSetup();
    const meeting = await startedMeeting();
    await join(alice, meeting.id);
    media.emitTalking(meeting.id, alice.userId, true);
    await join(bob, meeting.id);
    const toBob = sent('MEETING_PARTICIPANT_TALKING').filter((delivery) => delivery.queueId === queueOf(bob));
    expect(toBob.map((delivery) => delivery.event)).toEqual([
      expect.objectContaining({ userId: alice.userId, isTalking: true }),
    ]);
  });

  it(`refuses a join past limits.maxParticipants with meeting_full`, async () => {
    const { alice, bob, carol, startedMeeting, join } = await meetingSetup({ maxParticipants: 2 });
    const meeting = await startedMeeting();
    await join(alice, meeting.id);
    await join(bob, meeting.id);
    await expect(join(carol, meeting.id)).rejects.toMatchObject({
      code: 'meeting_full',
      details: { limit: 2 },
    });
    await join(bob, meeting.id, randomUUID());
  });
});
