import {
  AudioTestClient,
  layerFrameBase,
  readSyntheticVp8,
  recentToneShare,
  SimulcastTestPublisher,
  VideoTestPublisher,
  VideoTestSubscriber,
  waitFor,
  waitForQuiet,
} from '@collab-suite/webrtc-sfu/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { buildEventsAsyncApi } from '../../src/chat/events-asyncapi.js';
import { serverVersion } from '../../src/version.js';
import { receivedFrames } from '../chat/chat-test-support.js';
import { framesNotDescribed } from '../support/asyncapi-frames.js';
import { forwardVideo, type MeetingUser, meetingUser, startMeetingWorld } from './meeting-test-support.js';

let world: Awaited<ReturnType<typeof startMeetingWorld>> | undefined;
const clients: { close(): Promise<void> }[] = [];
const keep = <T extends { close(): Promise<void> }>(client: T) => {
  clients.push(client);
  return client;
};
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await world?.close();
  world = undefined;
});

/** Connects the user's audio through PUT /audio/offer and the MEETING_AUDIO_ANSWERED event. */
async function connectAudio(user: MeetingUser, meetingId: string): Promise<AudioTestClient> {
  const client = keep(new AudioTestClient());
  const offered = await user.call('PUT', `/meetings/${meetingId}/audio/offer`, {
    json: { sdp: await client.createOffer() },
  });
  expect(offered.status).toBe(204);
  const answered = await user.next('MEETING_AUDIO_ANSWERED');
  expect(answered).toMatchObject({ meetingId, userId: user.userId, sdp: expect.stringMatching(/^v=0/) });
  await client.acceptAnswer(answered.sdp);
  await waitFor(() => client.peer.connectionState === 'connected', `${user.userId} audio connected`);
  return client;
}

const audio = (user: MeetingUser, meetingId: string, body: object) =>
  user.call('PUT', `/meetings/${meetingId}/audio`, { json: body });

describe('meeting media through the HTTP API and /events, with werift clients', () => {
  it("mixes A's unmuted audio into B's stream, reports talking, and a moderator's mute silences B", async () => {
    world = await startMeetingWorld();
    const { alice, bob, meetingId, join } = world;
    await join(alice);
    await join(bob);
    const aliceAudio = await connectAudio(alice, meetingId);
    const bobAudio = await connectAudio(bob, meetingId);
    expect((await audio(alice, meetingId, { enabled: true })).status).toBe(204);
    expect(await bob.next('MEETING_AUDIO_STREAM_CHANGED')).toMatchObject({
      userId: alice.userId,
      active: true,
    });
    aliceAudio.startTone(440);
    await waitFor(() => bobAudio.received.length > 60, 'mixed audio at B');
    expect(recentToneShare(bobAudio.received, 440, 48_000)).toBeGreaterThan(0.8);
    expect(await bob.next('MEETING_PARTICIPANT_TALKING')).toMatchObject({
      meetingId,
      userId: alice.userId,
      isTalking: true,
    });
    // Alone talking for the hold (1 s), Alice becomes the dominant speaker.
    expect(await bob.next('MEETING_DOMINANT_SPEAKER')).toMatchObject({ meetingId, userId: alice.userId });

    await audio(bob, meetingId, { enabled: true });
    bobAudio.startTone(1_000);
    await waitFor(() => aliceAudio.received.length > 40, 'mixed audio at A');
    aliceAudio.stopTone();
    const moderated = await audio(alice, meetingId, { enabled: false, userToModerate: bob.userId });
    expect(moderated.status).toBe(204);
    const muted = await bob.next(
      'MEETING_AUDIO_STREAM_CHANGED',
      (event) => event.userId === bob.userId && !event.active,
    );
    expect(muted).toEqual({
      type: 'MEETING_AUDIO_STREAM_CHANGED',
      meetingId,
      userId: bob.userId,
      moderatorId: alice.userId,
      active: false,
      sentDate: expect.any(String),
    });
    // Packets in flight arrive however long a loaded machine takes; then nothing more comes.
    await waitForQuiet(() => aliceAudio.received.length, "Bob's audio at Alice after the mute");
    const participants = (await alice.call('GET', `/meetings/${meetingId}`)).body.participants;
    const audioOf = (userId: string) =>
      participants.find((participant: { userId: string }) => participant.userId === userId)
        ?.audioStreamEnabled;
    expect([audioOf(alice.userId), audioOf(bob.userId)]).toEqual([true, false]);
  });

  it("forwards A's video to B after B subscribes, with the mid map, and stops when A disables it", async () => {
    world = await startMeetingWorld();
    const { alice, bob, meetingId, join } = world;
    await join(alice);
    await join(bob);
    const publisher = keep(new VideoTestPublisher({ payloadType: 120 }));
    const published = await alice.call('PUT', `/meetings/${meetingId}/media`, {
      json: { type: 'video', enabled: true, sdp: await publisher.createOffer() },
    });
    expect(published.status).toBe(204);
    const answered = await alice.next('MEETING_SDP_ANSWERED');
    expect(answered).toMatchObject({ userId: alice.userId, mediaType: 'VIDEO' });
    await publisher.acceptAnswer(answered.sdp);
    publisher.start({ bitrate: 300_000, keyframeInterval: 1_000 });
    expect(await bob.next('MEETING_MEDIA_STREAM_CHANGED')).toMatchObject({
      userId: alice.userId,
      mediaType: 'VIDEO',
      active: true,
    });

    const subscriber = keep(new VideoTestSubscriber());
    const subscribed = await bob.call('PUT', `/meetings/${meetingId}/media/subscribe`, {
      json: { subscribe: [{ userId: alice.userId, type: 'video' }], unsubscribe: [] },
    });
    expect(subscribed.status).toBe(204);
    const offered = await bob.next('MEETING_SDP_OFFERED');
    expect(offered).toMatchObject({ userId: bob.userId, mediaType: 'VIDEO' });
    const streams = (await bob.next('MEETING_PARTICIPANT_SUBSCRIBED')).streams;
    expect(streams).toEqual([{ type: 'VIDEO', userId: alice.userId, mid: expect.any(String) }]);
    const answer = await bob.call('PUT', `/meetings/${meetingId}/media/answer`, {
      json: { sdp: await subscriber.answer(offered.sdp) },
    });
    expect(answer.status).toBe(204);
    const mid = streams[0].mid as string;
    await waitFor(() => subscriber.count(mid) > 30, "A's video at B");
    const first = subscriber.packets[0]?.packet.payload;
    expect(first?.[0] === 0x10 && first[1] === 0x00).toBe(true);

    await alice.call('PUT', `/meetings/${meetingId}/media`, { json: { type: 'video', enabled: false } });
    expect(await bob.next('MEETING_MEDIA_STREAM_CHANGED', (event) => !event.active)).toMatchObject({
      userId: alice.userId,
    });
    const stoppedAt = await waitForQuiet(() => subscriber.count(mid), "A's video at B once disabled");
    const sent = publisher.packetsSent;
    await waitFor(() => publisher.packetsSent > sent + 20, 'publisher still sending');
    expect(subscriber.count(mid)).toBe(stoppedAt);
  });

  it('takes a simulcast publish and forwards the layer a subscriber asks for with quality (an extension); an unknown quality is a 400', async () => {
    world = await startMeetingWorld();
    const { alice, bob, meetingId, join } = world;
    await join(alice);
    await join(bob);
    const publisher = keep(new SimulcastTestPublisher());
    const published = await alice.call('PUT', `/meetings/${meetingId}/media`, {
      json: { type: 'video', enabled: true, sdp: await publisher.createOffer() },
    });
    expect(published.status).toBe(204);
    await publisher.acceptAnswer((await alice.next('MEETING_SDP_ANSWERED')).sdp);
    publisher.start();
    await bob.next('MEETING_MEDIA_STREAM_CHANGED', (event) => event.active === true);
    await waitFor(() => publisher.peer.connectionState === 'connected', "A's publish connection", 30_000);

    const unknown = await bob.call('PUT', `/meetings/${meetingId}/media/subscribe`, {
      json: { subscribe: [{ userId: alice.userId, type: 'video', quality: 'ultra' }], unsubscribe: [] },
    });
    expect(unknown.status).toBe(400);

    const subscriber = keep(new VideoTestSubscriber());
    const subscribed = await bob.call('PUT', `/meetings/${meetingId}/media/subscribe`, {
      json: { subscribe: [{ userId: alice.userId, type: 'video', quality: 'LOW' }], unsubscribe: [] },
    });
    expect(subscribed.status).toBe(204);
    const offered = await bob.next('MEETING_SDP_OFFERED');
    const mid = (await bob.next('MEETING_PARTICIPANT_SUBSCRIBED')).streams[0].mid as string;
    const answer = await bob.call('PUT', `/meetings/${meetingId}/media/answer`, {
      json: { sdp: await subscriber.answer(offered.sdp) },
    });
    expect(answer.status).toBe(204);
    await waitFor(() => subscriber.count(mid) > 30, "A's low layer at B", 30_000);
    const layers = new Set(
      subscriber.packets.map((received) =>
        Math.floor((readSyntheticVp8(received.packet.payload)?.frameNumber ?? -1) / layerFrameBase),
      ),
    );
    expect(layers).toEqual(new Set([0]));
  });

  it('stopping the meeting closes its media: the audio mix and forwarded video end', async () => {
    world = await startMeetingWorld();
    const { alice, bob, carol, meetingId, join } = world;
    await join(alice);
    await join(bob);
    const aliceAudio = await connectAudio(alice, meetingId);
    const bobAudio = await connectAudio(bob, meetingId);
    await audio(alice, meetingId, { enabled: true });
    aliceAudio.startTone(440);
    const { publisher, subscriber, mid } = await forwardVideo(alice, bob, meetingId, 200_000);
    keep(publisher);
    keep(subscriber);
    await waitFor(() => subscriber.count(mid) > 10 && bobAudio.received.length > 10, 'media before stopping');

    expect((await carol.call('POST', `/meetings/${meetingId}/stop`)).status).toBe(200);
    expect(await bob.next('MEETING_STOPPED')).toMatchObject({ meetingId });
    await waitForQuiet(() => subscriber.count(mid) + bobAudio.received.length, 'media at B after the stop');
    const [videoAt, audioAt, sentAt] = [
      subscriber.count(mid),
      bobAudio.received.length,
      publisher.packetsSent,
    ];
    await waitFor(() => publisher.packetsSent > sentAt + 20, 'publisher still sending');
    expect([subscriber.count(mid), bobAudio.received.length]).toEqual([videoAt, audioAt]);
    const offer = await bob.call('PUT', `/meetings/${meetingId}/audio/offer`, {
      json: { sdp: await keep(new AudioTestClient()).createOffer() },
    });
    expect(offer.status).toBe(404);
  });

  it('a second session of the same user replaces the first, which is told it clashed', async () => {
    world = await startMeetingWorld();
    const { alice, bob, meetingId, join, server } = world;
    await join(alice);
    await join(bob);
    const aliceAudio = await connectAudio(alice, meetingId);
    const bobAudio = await connectAudio(bob, meetingId);
    await audio(alice, meetingId, { enabled: true });
    aliceAudio.startTone(440);
    await waitFor(() => bobAudio.received.length > 10, 'audio at the first session');
    const secondTab = await meetingUser(server, bob.userId);
    clients.push({ close: () => secondTab.events.close() });
    expect((await join(secondTab)).status).toBe(200);
    expect(await bob.next('MEETING_PARTICIPANT_CLASHED')).toMatchObject({ meetingId });
    expect(secondTab.received('MEETING_PARTICIPANT_CLASHED')).toEqual([]);
    expect(await alice.next('MEETING_PARTICIPANT_LEFT')).toMatchObject({ userId: bob.userId });
    const participants = (await alice.call('GET', `/meetings/${meetingId}`)).body.participants;
    expect(
      participants.find((participant: { userId: string }) => participant.userId === bob.userId).queueId,
    ).toBe(secondTab.queueId);
    await waitForQuiet(() => bobAudio.received.length, 'audio at the replaced first session');
  });

  it('a dropped /events socket removes its participant (after the reconnection grace) and tells the others; the last one out stops it', async () => {
    world = await startMeetingWorld('sqlite', { MEETING_RECONNECT_GRACE_SECONDS: '1' });
    const { alice, bob, carol, meetingId, join } = world;
    await join(alice);
    await join(bob);
    bob.events.socket.terminate();
    expect(await alice.next('MEETING_PARTICIPANT_LEFT')).toMatchObject({ meetingId, userId: bob.userId });
    const participants = (await alice.call('GET', `/meetings/${meetingId}`)).body.participants;
    expect(participants.map((participant: { userId: string }) => participant.userId)).toEqual([alice.userId]);
    alice.events.socket.terminate();
    expect(await carol.next('MEETING_STOPPED')).toMatchObject({ meetingId });
    expect((await carol.call('GET', `/meetings/${meetingId}`)).body).toMatchObject({
      active: false,
      participants: [],
    });
  });

  it('sent only frames that the AsyncAPI document describes, each matching its payload schema', () => {
    const types = new Set(receivedFrames.map((frame) => frame.type));
    expect([...types]).toEqual(
      expect.arrayContaining([
        'MEETING_AUDIO_ANSWERED',
        'MEETING_SDP_ANSWERED',
        'MEETING_SDP_OFFERED',
        'MEETING_PARTICIPANT_SUBSCRIBED',
        'MEETING_PARTICIPANT_TALKING',
        'MEETING_DOMINANT_SPEAKER',
        'MEETING_PARTICIPANT_CLASHED',
      ]),
    );
    // The builder behind /asyncapi.json: the servers of the tests above are stopped by now.
    const document = buildEventsAsyncApi({ version: serverVersion });
    expect(framesNotDescribed(document, receivedFrames)).toEqual([]);
  });
});
