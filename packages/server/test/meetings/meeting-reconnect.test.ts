import {
  AudioTestClient,
  localSdp,
  moveLoopbackPeer,
  selectedLocalAddress,
  waitFor,
} from '@collab-suite/webrtc-sfu/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type EventsClient, openEvents } from '../chat/chat-test-support.js';
import { forwardVideo, type MeetingUser, startMeetingWorld } from './meeting-test-support.js';

// Reconnection without leaving: an /events socket that drops and comes back with its queue id
// within MEETING_RECONNECT_GRACE_SECONDS keeps the meeting; clients that change address restart
// ICE on their connections through the meeting API. werift clients; everything on loopback
// (127.0.0.1, and 127.0.0.2 as the "new network").

let world: Awaited<ReturnType<typeof startMeetingWorld>> | undefined;
const closers: { close(): Promise<void> }[] = [];
const keep = <T extends { close(): Promise<void> }>(closer: T) => {
  closers.push(closer);
  return closer;
};
afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
  await world?.close();
  world = undefined;
});

const generous = 30_000;

/** Cuts the user's /events connection without a close handshake, as a lost network does. */
function dropEvents(user: MeetingUser): void {
  user.events.socket.terminate();
}

/** Opens a new /events socket for `user` that asks to resume `queueId`. */
async function reconnectEvents(
  started: Awaited<ReturnType<typeof startMeetingWorld>>,
  user: MeetingUser,
  queueId: string,
): Promise<EventsClient> {
  const token = await started.server.token(user.userId);
  const events = await openEvents(started.server.url, token, `?queueId=${queueId}`);
  return keep(events);
}

const leftEvents = (events: EventsClient, userId: string) =>
  events.messages.filter(
    (message) => message.type === 'MEETING_PARTICIPANT_LEFT' && message.userId === userId,
  );

describe('meeting reconnection', () => {
  it('a /events socket that drops and comes back with its queue id within the grace keeps the participant and its media; one that does not come back leaves after the grace', async () => {
    world = await startMeetingWorld('sqlite', { MEETING_RECONNECT_GRACE_SECONDS: '3' });
    const { alice, bob, carol, meetingId, join } = world;
    await join(alice);
    await join(bob);
    await join(carol);
    const { publisher, subscriber, mid } = await forwardVideo(alice, bob, meetingId, 200_000);
    keep(publisher);
    keep(subscriber);
    await waitFor(() => subscriber.count(mid) > 20, 'video at bob', generous);

    dropEvents(bob);
    dropEvents(carol);
    const resumed = await reconnectEvents(world, bob, bob.queueId);
    expect(resumed.messages[0]).toEqual({ type: 'websocketConnected', queueId: bob.queueId, resumed: true });

    // Carol did not come back: she leaves once the grace is over, and bob, who dropped first, did not.
    const carolLeft = await alice.next(
      'MEETING_PARTICIPANT_LEFT',
      (event) => event.userId === carol.userId,
      generous,
    );
    expect(carolLeft).toMatchObject({ meetingId, userId: carol.userId });
    expect(leftEvents(alice.events, bob.userId)).toEqual([]);
    const meeting = await alice.call('GET', `/meetings/${meetingId}`);
    const present = meeting.body.participants.map((participant: { userId: string }) => participant.userId);
    expect(present.sort()).toEqual([alice.userId, bob.userId].sort());
    const before = subscriber.count(mid);
    await waitFor(() => subscriber.count(mid) > before + 20, 'video at bob after the drop', generous);

    // The resumed session still names bob's participation: a meeting call answers on it.
    const offered = resumed.next((message) => message.type === 'MEETING_SDP_OFFERED', generous);
    const restart = await bob.call('PUT', `/meetings/${meetingId}/media/subscribe`, {
      json: { subscribe: [], unsubscribe: [], iceRestart: true },
    });
    expect(restart.status).toBe(204);
    await bob.call('PUT', `/meetings/${meetingId}/media/answer`, {
      json: { sdp: await subscriber.answer((await offered).sdp) },
    });
  }, 90_000);

  it("a reconnection asking for an unknown queue id, or another user's, gets a new session (resumed: false)", async () => {
    world = await startMeetingWorld('sqlite', { MEETING_RECONNECT_GRACE_SECONDS: '30' });
    const { alice, bob } = world;
    const unknown = await reconnectEvents(world, alice, '00000000-0000-4000-8000-000000000000');
    expect(unknown.messages[0]).toMatchObject({ type: 'websocketConnected', resumed: false });
    expect(unknown.messages[0]?.queueId).not.toBe('00000000-0000-4000-8000-000000000000');
    dropEvents(bob);
    const stolen = await reconnectEvents(world, alice, bob.queueId);
    expect(stolen.messages[0]).toMatchObject({ type: 'websocketConnected', resumed: false });
    expect(stolen.messages[0]?.queueId).not.toBe(bob.queueId);
  });

  it('clients that move to a new address restart ICE through the meeting API and get their video and audio back without leaving', async () => {
    world = await startMeetingWorld('sqlite', { MEETING_ICE_ONLY_ADDRESSES: '127.0.0.1,127.0.0.2' });
    const { alice, bob, meetingId, join } = world;
    await join(alice);
    await join(bob);
    const { publisher, subscriber, mid } = await forwardVideo(alice, bob, meetingId, 200_000);
    keep(publisher);
    keep(subscriber);
    const bobAudio = keep(new AudioTestClient());
    await bob.call('PUT', `/meetings/${meetingId}/audio/offer`, {
      json: { sdp: await bobAudio.createOffer() },
    });
    await bobAudio.acceptAnswer((await bob.next('MEETING_AUDIO_ANSWERED')).sdp);
    const aliceAudio = keep(new AudioTestClient());
    await alice.call('PUT', `/meetings/${meetingId}/audio/offer`, {
      json: { sdp: await aliceAudio.createOffer() },
    });
    await aliceAudio.acceptAnswer((await alice.next('MEETING_AUDIO_ANSWERED')).sdp);
    await alice.call('PUT', `/meetings/${meetingId}/audio`, { json: { enabled: true } });
    aliceAudio.startTone(440);
    await waitFor(
      () => subscriber.count(mid) > 20 && bobAudio.packetsReceived > 20,
      'video and audio at bob',
      generous,
    );

    moveLoopbackPeer(publisher.peer, '127.0.0.2');
    moveLoopbackPeer(subscriber.peer, '127.0.0.2');
    moveLoopbackPeer(bobAudio.peer, '127.0.0.2');
    // Alice offers a restart of her camera connection.
    publisher.peer.restartIce();
    const againAnswered = alice.received('MEETING_SDP_ANSWERED').length;
    await alice.call('PUT', `/meetings/${meetingId}/media`, {
      json: { type: 'video', enabled: true, sdp: await publisher.createOffer() },
    });
    await waitFor(
      () => alice.received('MEETING_SDP_ANSWERED').length > againAnswered,
      'the restart answer',
      generous,
    );
    await publisher.acceptAnswer(alice.received('MEETING_SDP_ANSWERED').at(-1)?.sdp);
    // Bob asks for a restart of his subscribe connection, and offers one for his audio.
    const offersBefore = bob.received('MEETING_SDP_OFFERED').length;
    await bob.call('PUT', `/meetings/${meetingId}/media/subscribe`, {
      json: { subscribe: [], unsubscribe: [], iceRestart: true },
    });
    await waitFor(
      () => bob.received('MEETING_SDP_OFFERED').length > offersBefore,
      'the restart offer',
      generous,
    );
    await bob.call('PUT', `/meetings/${meetingId}/media/answer`, {
      json: { sdp: await subscriber.answer(bob.received('MEETING_SDP_OFFERED').at(-1)?.sdp) },
    });
    bobAudio.peer.restartIce();
    const audioAnswers = bob.received('MEETING_AUDIO_ANSWERED').length;
    await bob.call('PUT', `/meetings/${meetingId}/audio/offer`, {
      json: { sdp: await localSdp(bobAudio.peer, 'offer') },
    });
    await waitFor(
      () => bob.received('MEETING_AUDIO_ANSWERED').length > audioAnswers,
      'the audio answer',
      generous,
    );
    await bobAudio.acceptAnswer(bob.received('MEETING_AUDIO_ANSWERED').at(-1)?.sdp);

    await waitFor(
      () =>
        [publisher.peer, subscriber.peer, bobAudio.peer].every(
          (peer) => selectedLocalAddress(peer) === '127.0.0.2',
        ),
      'every moved connection on its new address',
      generous,
    );
    const video = subscriber.count(mid);
    const sound = bobAudio.packetsReceived;
    await waitFor(
      () => subscriber.count(mid) > video + 20 && bobAudio.packetsReceived > sound + 20,
      'video and audio at bob after the restarts',
      generous,
    );
    expect(leftEvents(alice.events, bob.userId)).toEqual([]);
    expect(leftEvents(bob.events, alice.userId)).toEqual([]);
  }, 90_000);
});
