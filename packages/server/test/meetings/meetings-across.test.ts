import { AudioTestClient } from '@collab-suite/webrtc-sfu/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatTestServer, startChatServer, users } from '../chat/chat-test-support.js';
import {
  loopbackMeetingEnv,
  type MeetingUser,
  meetingUser,
  startMeetingWorld,
} from './meeting-test-support.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('meetings and room membership', () => {
  it('a member removed from the room leaves its meeting; deleting the room deletes the meeting', async () => {
    const world = await startMeetingWorld();
    try {
      const { alice, bob, carol, meetingId, roomId, join } = world;
      await join(alice);
      await join(bob);
      expect((await alice.call('DELETE', `/rooms/${roomId}/members/${bob.userId}`)).status).toBe(204);
      expect(await carol.next('MEETING_PARTICIPANT_LEFT')).toMatchObject({ meetingId, userId: bob.userId });
      const participants = (await alice.call('GET', `/meetings/${meetingId}`)).body.participants;
      expect(participants.map((participant: { userId: string }) => participant.userId)).toEqual([
        alice.userId,
      ]);
      expect((await alice.call('DELETE', `/rooms/${roomId}`)).status).toBe(204);
      expect(await carol.next('MEETING_DELETED')).toMatchObject({ meetingId });
      expect((await alice.call('GET', `/meetings/${meetingId}`)).status).toBe(404);
    } finally {
      await world.close();
    }
  });
});

describe('scheduled meetings', () => {
  it('are removed by the server once their expiration has passed', async () => {
    const world = await startMeetingWorld('sqlite', { MEETING_EXPIRY_SWEEP_MS: '1000' });
    try {
      const { alice, bob, carol } = world;
      const room = await alice.call('POST', '/rooms', {
        json: { type: 'group', name: 'Once', membersIds: [bob.userId, carol.userId] },
      });
      const expiration = new Date(Date.now() + 1_500).toISOString();
      const created = await alice.call('POST', '/meetings', {
        json: { roomId: room.body.id, meetingType: 'scheduled', expiration },
      });
      expect(created.body).toMatchObject({ meetingType: 'scheduled', expiration });
      expect(
        await bob.next('MEETING_DELETED', (event) => event.meetingId === created.body.id, 10_000),
      ).toBeTruthy();
      expect((await alice.call('GET', `/meetings/${created.body.id}`)).status).toBe(404);
      expect((await alice.call('GET', `/meetings/${world.meetingId}`)).status).toBe(200);
    } finally {
      await world.close();
    }
  });
});

describe('meetings with events carried by Redis', () => {
  let first: ChatTestServer;
  let second: ChatTestServer;
  const people: MeetingUser[] = [];
  beforeAll(async () => {
    const env = { ...loopbackMeetingEnv, CHAT_REDIS_URL: redisUrl };
    first = await startChatServer('postgres', { env });
    second = await startChatServer('postgres', { env });
  });
  afterAll(async () => {
    await Promise.all(people.map((person) => person.events.close()));
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it('an answer reaches the queue that joined, on whichever instance its socket is', async () => {
    const { a, b, c } = users('a', 'b', 'c');
    const alice = await meetingUser(second, a);
    const aliceElsewhere = await meetingUser(first, a);
    people.push(alice, aliceElsewhere);
    const call = first.as(a);
    const room = await call('POST', '/rooms', {
      json: { type: 'group', name: 'Across', membersIds: [b, c] },
    });
    const meeting = await call('POST', '/meetings', { json: { roomId: room.body.id } });
    await call('POST', `/meetings/${meeting.body.id}/start`);
    const joined = await call('POST', `/meetings/${meeting.body.id}/join`, {
      json: { audioStreamEnabled: false, videoStreamEnabled: false },
      headers: { 'queue-id': alice.queueId },
    });
    expect(joined.status).toBe(200);
    const client = new AudioTestClient();
    try {
      const offered = await call('PUT', `/meetings/${meeting.body.id}/audio/offer`, {
        json: { sdp: await client.createOffer() },
      });
      expect(offered.status).toBe(204);
      expect(await alice.next('MEETING_AUDIO_ANSWERED')).toMatchObject({
        userId: a,
        sdp: expect.stringMatching(/^v=0/),
      });
    } finally {
      await client.close();
    }
    expect(await aliceElsewhere.next('MEETING_STARTED')).toMatchObject({
      meetingId: meeting.body.id,
      starterUser: a,
    });
    await call('POST', `/meetings/${meeting.body.id}/stop`);
    await aliceElsewhere.next('MEETING_STOPPED');
    expect(aliceElsewhere.received('MEETING_PARTICIPANT_JOINED')).toHaveLength(1);
    expect(aliceElsewhere.received('MEETING_AUDIO_ANSWERED')).toEqual([]);
  });
});
