import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { meetingSetup } from './meeting-support.js';

async function twoInMeeting() {
  const setup = await meetingSetup();
  const meeting = await setup.startedMeeting();
  await setup.join(setup.alice, meeting.id);
  await setup.join(setup.bob, meeting.id);
  return { ...setup, meeting };
}

describe('meeting media', () => {
  it('answers an audio offer to the caller queue only; unmute and mute reach the participants', async () => {
    const { meetings, meeting, bob, alice, sent, queueOf, media, recipients } = await twoInMeeting();
    await meetings.offerAudio(bob, meeting.id, { sdp: 'v=0 offer' });
    const answered = sent('MEETING_AUDIO_ANSWERED');
    expect(answered.map((delivery) => [delivery.userId, delivery.queueId])).toEqual([
      [bob.userId, queueOf(bob)],
    ]);
    expect(answered[0]?.event).toMatchObject({
      meetingId: meeting.id,
      userId: bob.userId,
      sdp: expect.stringMatching(/^v=0/),
    });
    await meetings.updateAudio(bob, meeting.id, { enabled: true });
    await meetings.updateAudio(bob, meeting.id, { enabled: true });
    expect(recipients('MEETING_AUDIO_STREAM_CHANGED')).toEqual([alice.userId, bob.userId].sort());
    expect(sent('MEETING_AUDIO_STREAM_CHANGED')[0]?.event).toEqual({
      type: 'MEETING_AUDIO_STREAM_CHANGED',
      meetingId: meeting.id,
      userId: bob.userId,
      active: true,
      sentDate: expect.any(String),
    });
    expect(media.meetings.get(meeting.id)?.get(bob.userId)?.audioEnabled).toBe(true);
    expect(
      (await meetings.getMeeting(alice, meeting.id)).participants.find((p) => p.userId === bob.userId)
        ?.audioStreamEnabled,
    ).toBe(true);
  });

  it('lets a room owner mute someone else, with moderatorId, and nobody else', async () => {
    const { meetings, meeting, alice, bob, carol, sent, media } = await twoInMeeting();
    await meetings.updateAudio(bob, meeting.id, { enabled: true });
    await expect(
      meetings.updateAudio(bob, meeting.id, { enabled: false, userToModerate: alice.userId }),
    ).rejects.toMatchObject({
      code: 'not_an_owner',
    });
    await expect(
      meetings.updateAudio(alice, meeting.id, { enabled: true, userToModerate: bob.userId }),
    ).rejects.toMatchObject({
      code: 'operation_not_allowed',
    });
    await expect(
      meetings.updateAudio(alice, meeting.id, { enabled: false, userToModerate: carol.userId }),
    ).rejects.toMatchObject({
      code: 'participant_not_found',
    });
    await meetings.updateAudio(alice, meeting.id, { enabled: false, userToModerate: bob.userId });
    expect(sent('MEETING_AUDIO_STREAM_CHANGED').at(-1)?.event).toMatchObject({
      userId: bob.userId,
      moderatorId: alice.userId,
      active: false,
    });
    expect(media.meetings.get(meeting.id)?.get(bob.userId)?.audioEnabled).toBe(false);
  });

  it('publishes video: SDP answer to the caller queue, stream change to participants; disabling stops forwarding', async () => {
    const { meetings, meeting, alice, bob, sent, queueOf, media } = await twoInMeeting();
    await meetings.updateMedia(alice, meeting.id, { type: 'VIDEO', enabled: true, sdp: 'v=0 camera' });
    expect(sent('MEETING_SDP_ANSWERED').map((delivery) => [delivery.queueId, delivery.event.type])).toEqual([
      [queueOf(alice), 'MEETING_SDP_ANSWERED'],
    ]);
    expect(sent('MEETING_SDP_ANSWERED')[0]?.event).toMatchObject({ mediaType: 'VIDEO' });
    expect(
      sent('MEETING_MEDIA_STREAM_CHANGED')
        .map((delivery) => delivery.userId)
        .sort(),
    ).toEqual([alice.userId, bob.userId].sort());
    await meetings.updateMedia(alice, meeting.id, { type: 'video', enabled: true, sdp: 'v=0 new camera' });
    expect(sent('MEETING_SDP_ANSWERED')).toHaveLength(2);
    expect(sent('MEETING_MEDIA_STREAM_CHANGED')).toHaveLength(2);
    await meetings.updateMedia(alice, meeting.id, { type: 'video', enabled: false });
    await meetings.updateMedia(alice, meeting.id, { type: 'video', enabled: false });
    expect(sent('MEETING_MEDIA_STREAM_CHANGED').at(-1)?.event).toMatchObject({
      mediaType: 'VIDEO',
      active: false,
    });
    expect(sent('MEETING_MEDIA_STREAM_CHANGED')).toHaveLength(4);
    expect(media.meetings.get(meeting.id)?.get(alice.userId)?.published.get('video')?.enabled).toBe(false);
  });

  it('refuses enabling without sdp, malformed sdp, and callers who are not participants', async () => {
    const { meetings, meeting, alice, carol } = await twoInMeeting();
    await expect(
      meetings.updateMedia(alice, meeting.id, { type: 'video', enabled: true }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('sdp'),
    });
    await expect(
      meetings.updateMedia(alice, meeting.id, { type: 'audio', enabled: false }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(
      meetings.updateMedia(alice, meeting.id, { type: 'screen', enabled: true, sdp: 'nonsense' }),
    ).rejects.toMatchObject({
      code: 'invalid_sdp',
    });
    await expect(meetings.offerAudio(carol, meeting.id, { sdp: 'v=0' })).rejects.toMatchObject({
      code: 'participant_not_found',
    });
    await expect(meetings.offerAudio(alice, meeting.id, { sdp: 'x'.repeat(70_000) })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('65536 bytes'),
    });
  });

  it('subscribes: offer and mid map to the caller queue; the answer completes it', async () => {
    const { meetings, meeting, alice, bob, sent, queueOf } = await twoInMeeting();
    await meetings.updateMedia(alice, meeting.id, { type: 'screen', enabled: true, sdp: 'v=0 screen' });
    await expect(
      meetings.updateSubscriptions(bob, meeting.id, { subscribe: [], unsubscribe: [] }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(
      meetings.updateSubscriptions(bob, meeting.id, {
        subscribe: [{ userId: alice.userId, type: 'video' }],
        unsubscribe: [],
      }),
    ).rejects.toMatchObject({ code: 'stream_not_found' });
    await expect(meetings.answerMedia(bob, meeting.id, { sdp: 'v=0' })).rejects.toMatchObject({
      code: 'invalid_media_state',
    });
    await meetings.updateSubscriptions(bob, meeting.id, {
      subscribe: [{ userId: alice.userId, type: 'screen' }],
      unsubscribe: [],
    });
    expect(sent('MEETING_SDP_OFFERED').map((delivery) => delivery.queueId)).toEqual([queueOf(bob)]);
    expect(sent('MEETING_SDP_OFFERED')[0]?.event).toMatchObject({ mediaType: 'VIDEO', userId: bob.userId });
    expect(sent('MEETING_PARTICIPANT_SUBSCRIBED')[0]?.event).toMatchObject({
      userId: bob.userId,
      streams: [{ type: 'SCREEN', userId: alice.userId, mid: '0' }],
    });
    await meetings.answerMedia(bob, meeting.id, { sdp: 'v=0 answer' });
  });

  it('announces talking to the participants', async () => {
    const { meeting, alice, bob, media, sent } = await twoInMeeting();
    media.emitTalking(meeting.id, alice.userId, true);
    // The announcement is a background task: wait for it, not for a fixed time.
    await vi.waitFor(() => expect(sent('MEETING_PARTICIPANT_TALKING')).toHaveLength(2), { timeout: 10_000 });
    expect(
      sent('MEETING_PARTICIPANT_TALKING')
        .map((delivery) => delivery.userId)
        .sort(),
    ).toEqual([alice.userId, bob.userId].sort());
    expect(sent('MEETING_PARTICIPANT_TALKING')[0]?.event).toMatchObject({
      userId: alice.userId,
      isTalking: true,
    });
    expect(randomUUID()).not.toBe(meeting.id);
  });

  it('announces the dominant speaker to the participants, and to someone joining later', async () => {
    const { meeting, alice, bob, carol, media, sent, queueOf, join } = await twoInMeeting();
    media.emitDominantSpeaker(meeting.id, alice.userId);
    await vi.waitFor(() => expect(sent('MEETING_DOMINANT_SPEAKER')).toHaveLength(2), { timeout: 10_000 });
    expect(
      sent('MEETING_DOMINANT_SPEAKER')
        .map((delivery) => delivery.userId)
        .sort(),
    ).toEqual([alice.userId, bob.userId].sort());
    expect(sent('MEETING_DOMINANT_SPEAKER')[0]?.event).toMatchObject({
      meetingId: meeting.id,
      userId: alice.userId,
    });
    await join(carol, meeting.id);
    expect(sent('MEETING_DOMINANT_SPEAKER').filter((delivery) => delivery.userId === carol.userId)).toEqual([
      expect.objectContaining({
        queueId: queueOf(carol),
        event: expect.objectContaining({ userId: alice.userId }),
      }),
    ]);
  });

  it('stops the meetings whose media was lost and tells their rooms why, touching no other meeting', async () => {
    const { meetings, meeting, alice, bob, carol, chat, media, sent } = await twoInMeeting();
    const otherRoom = await chat.createRoom(alice, {
      type: 'group',
      name: 'Other',
      membersIds: [bob.userId, carol.userId],
    });
    const other = await meetings.createMeeting(alice, { roomId: otherRoom.id, name: 'Other' });
    await meetings.startMeeting(alice, other.id);
    media.emitMediaLost([meeting.id]);
    await vi.waitFor(async () => expect((await meetings.getMeeting(alice, meeting.id)).active).toBe(false), {
      timeout: 10_000,
    });
    expect(sent('MEETING_STOPPED').map((delivery) => delivery.event)).toContainEqual({
      type: 'MEETING_STOPPED',
      meetingId: meeting.id,
      reason: 'media_server_failed',
      sentDate: expect.any(String),
    });
    expect((await meetings.getMeeting(alice, meeting.id)).participants).toEqual([]);
    expect((await meetings.getMeeting(alice, other.id)).active).toBe(true);
    await meetings.startMeeting(alice, meeting.id);
    expect((await meetings.getMeeting(alice, meeting.id)).active).toBe(true);
  });
});
