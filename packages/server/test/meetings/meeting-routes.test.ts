import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatDatabases, receivedFrames } from '../chat/chat-test-support.js';
import { framesNotDescribed, servedAsyncApi } from '../support/asyncapi-frames.js';
import { startMeetingWorld } from './meeting-test-support.js';

describe.each(chatDatabases)('meeting routes on %s', (database) => {
  let world: Awaited<ReturnType<typeof startMeetingWorld>>;
  beforeAll(async () => {
    world = await startMeetingWorld(database);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('creates, lists, gets, answers the room meeting, and refuses a second meeting with 409', async () => {
    const { alice, carol, roomId, meetingId } = world;
    const listed = await carol.call('GET', '/meetings');
    expect(listed.status).toBe(200);
    expect(listed.body.map((meeting: { id: string }) => meeting.id)).toEqual([meetingId]);
    const got = await carol.call('GET', `/meetings/${meetingId}`);
    expect(got.body).toMatchObject({
      id: meetingId,
      roomId,
      name: 'Daily',
      active: true,
      meetingType: 'permanent',
    });
    expect((await carol.call('GET', `/rooms/${roomId}/meeting`)).body.id).toBe(meetingId);
    expect((await alice.call('GET', `/rooms/${roomId}`)).body.meetingId).toBe(meetingId);
    const again = await alice.call('POST', '/meetings', { json: { roomId } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('meeting_exists');
    expect((await alice.call('POST', '/meetings', { json: {} })).status).toBe(400);
    expect((await alice.call('GET', `/meetings/${randomUUID()}`)).status).toBe(404);
    expect((await alice.call('GET', '/meetings/nope')).status).toBe(404);
    expect((await alice.call('GET', '/meetings', { anonymous: true })).status).toBe(401);
    const stranger = await world.server.as(randomUUID())('GET', `/meetings/${meetingId}`);
    expect(stranger.status).toBe(403);
  });

  it('joins with ACCEPTED from an open queue; refuses no, a foreign or a repeated queue', async () => {
    const { bob, carol, meetingId, join } = world;
    const noQueue = await bob.call('POST', `/meetings/${meetingId}/join`, {
      json: { audioStreamEnabled: false, videoStreamEnabled: false },
    });
    expect(noQueue.status).toBe(400);
    expect(noQueue.body.message).toContain('queue-id');
    expect((await join(bob, carol.queueId)).status).toBe(400);
    expect((await join(bob, randomUUID())).status).toBe(400);
    const joined = await join(bob);
    expect(joined.status).toBe(200);
    expect(joined.body).toEqual({ status: 'ACCEPTED', iceServers: [] });
    expect((await join(bob)).status).toBe(409);
    const event = await carol.next('MEETING_PARTICIPANT_JOINED', (message) => message.userId === bob.userId);
    expect(event).toMatchObject({ meetingId, userId: bob.userId, sentDate: expect.any(String) });
    const participants = (await carol.call('GET', `/meetings/${meetingId}`)).body.participants;
    expect(participants).toEqual([
      expect.objectContaining({
        userId: bob.userId,
        queueId: bob.queueId,
        userType: 'registered',
        audioStreamEnabled: false,
      }),
    ]);
  });

  it('answers 400 for malformed SDP, 404 for non participants, 409 for an answer without an offer', async () => {
    const { bob, carol, meetingId } = world;
    const malformed = await bob.call('PUT', `/meetings/${meetingId}/audio/offer`, { json: { sdp: 'hello' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('invalid_sdp');
    const video = await bob.call('PUT', `/meetings/${meetingId}/media`, {
      json: { type: 'video', enabled: true, sdp: 'v=0\r\n' },
    });
    expect(video.status).toBe(400);
    expect(
      (await bob.call('PUT', `/meetings/${meetingId}/media`, { json: { type: 'video', enabled: true } }))
        .status,
    ).toBe(400);
    expect(
      (await bob.call('PUT', `/meetings/${meetingId}/media/answer`, { json: { sdp: 'v=0\r\n' } })).status,
    ).toBe(409);
    expect(
      (await carol.call('PUT', `/meetings/${meetingId}/audio`, { json: { enabled: true } })).status,
    ).toBe(404);
    const notJson = await bob.call('PUT', `/meetings/${meetingId}/audio/offer`, {
      body: '{"sdp":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    const empty = await bob.call('PUT', `/meetings/${meetingId}/media/subscribe`, {
      json: { subscribe: [], unsubscribe: [] },
    });
    expect(empty.status).toBe(400);
  });

  it('lets only an owner mute someone else (403), never unmute (400)', async () => {
    const { alice, bob, carol, meetingId, join } = world;
    await join(alice);
    expect(
      (
        await bob.call('PUT', `/meetings/${meetingId}/audio`, {
          json: { enabled: false, userToModerate: alice.userId },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await alice.call('PUT', `/meetings/${meetingId}/audio`, {
          json: { enabled: true, userToModerate: bob.userId },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await alice.call('PUT', `/meetings/${meetingId}/audio`, {
          json: { enabled: false, userToModerate: carol.userId },
        })
      ).status,
    ).toBe(404);
  });

  it('stops the meeting when the last participant leaves, then 409 on join says so', async () => {
    const { alice, bob, carol, meetingId, join } = world;
    expect((await carol.call('POST', `/meetings/${meetingId}/leave`)).status).toBe(204);
    expect((await bob.call('POST', `/meetings/${meetingId}/leave`)).status).toBe(204);
    expect((await alice.call('POST', `/meetings/${meetingId}/leave`)).status).toBe(204);
    await carol.next('MEETING_STOPPED', (message) => message.meetingId === meetingId);
    const meeting = (await carol.call('GET', `/meetings/${meetingId}`)).body;
    expect(meeting).toMatchObject({ active: false, participants: [] });
    const refused = await join(bob);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'meeting_not_active',
      message: expect.stringContaining('start it first'),
    });
    const started = await bob.call('POST', `/meetings/${meetingId}/start`);
    expect(started.body).toMatchObject({ active: true, startedAt: expect.any(String) });
    expect((await carol.call('POST', `/meetings/${meetingId}/stop`)).body.active).toBe(false);
  });

  it('deletes a meeting (204) and tells the room', async () => {
    const { carol, bob, meetingId, roomId } = world;
    expect((await carol.call('DELETE', `/meetings/${meetingId}`)).status).toBe(204);
    await bob.next('MEETING_DELETED', (message) => message.meetingId === meetingId);
    expect((await carol.call('GET', `/rooms/${roomId}/meeting`)).status).toBe(404);
    expect((await carol.call('DELETE', `/meetings/${meetingId}`)).status).toBe(404);
  });

  it('sent only frames that /asyncapi.json describes, each matching its payload schema', async () => {
    const types = new Set(receivedFrames.map((frame) => frame.type));
    expect([...types]).toEqual(
      expect.arrayContaining(['MEETING_CREATED', 'MEETING_STARTED', 'MEETING_STOPPED', 'MEETING_DELETED']),
    );
    expect(framesNotDescribed(await servedAsyncApi(world.server.url), receivedFrames)).toEqual([]);
  });
});
