import { afterEach, describe, expect, it } from 'vitest';
import { createSfu, type Sfu } from '../src/index.js';
import { isIceRestartOffer } from '../src/sdp/ice-restart.js';
import {
  AudioTestClient,
  localSdp,
  moveLoopbackPeer,
  selectedLocalAddress,
  VideoTestPublisher,
  VideoTestSubscriber,
  waitFor,
} from '../src/testing/index.js';

// Clients "change network" from 127.0.0.1 to 127.0.0.2 (both loopback): the old address drops what
// they send, and an ICE restart on the same connections must bring media back on the new address.
const movingSfuOptions = {
  ice: { hostAddresses: ['127.0.0.1'], onlyAddresses: ['127.0.0.1', '127.0.0.2'] },
};

let sfu: Sfu | undefined;
const clients: Array<{ close(): Promise<void> }> = [];

function track<T extends { close(): Promise<void> }>(client: T): T {
  clients.push(client);
  return client;
}

afterEach(async () => {
  sfu?.close();
  sfu = undefined;
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

const twentySeconds = 20_000;

describe('ICE restart', () => {
  it('tells a restart of the same connection (same fingerprint, new credentials) from a new connection', () => {
    const offer = (ufrag: string, fingerprint: string, session = '4711', ssrc = '') =>
      `v=0\r\no=- ${session} 2 IN IP4 127.0.0.1\r\na=ice-ufrag:${ufrag}\r\na=ice-pwd:secretsecretsecretsecret\r\na=fingerprint:sha-256 ${fingerprint}\r\n${ssrc ? `a=ssrc:${ssrc} cname:x\r\n` : ''}`;
    // A browser: same certificate and session id, new credentials.
    expect(isIceRestartOffer(offer('abcd', 'AA:BB'), offer('efgh', 'aa:bb'))).toBe(true);
    // werift: one certificate per process, a new session id per offer, the same senders.
    expect(isIceRestartOffer(offer('abcd', 'AA:BB', '1', '42'), offer('efgh', 'AA:BB', '2', '42'))).toBe(
      true,
    );
    expect(isIceRestartOffer(offer('abcd', 'AA:BB', '1', '42'), offer('efgh', 'AA:BB', '2', '43'))).toBe(
      false,
    );
    expect(isIceRestartOffer(offer('abcd', 'AA:BB', '1'), offer('efgh', 'AA:BB', '2'))).toBe(false);
    expect(isIceRestartOffer(offer('abcd', 'AA:BB'), offer('abcd', 'AA:BB'))).toBe(false);
    expect(isIceRestartOffer(offer('abcd', 'AA:BB'), offer('efgh', 'CC:DD'))).toBe(false);
    expect(isIceRestartOffer(undefined, offer('efgh', 'AA:BB'))).toBe(false);
  });

  it('a publisher and a subscriber that move to a new address recover their video with an ICE restart on the same connections', async () => {
    sfu = createSfu(movingSfuOptions);
    const router = sfu.createRouter('meeting-ice');
    const alice = router.createSession('alice');
    const bob = router.createSession('bob');
    const publisher = track(new VideoTestPublisher({ payloadType: 120 }));
    await publisher.acceptAnswer(await alice.publish('video', await publisher.createOffer()));
    publisher.start({ bitrate: 200_000, framesPerSecond: 20, keyframeInterval: 1_000 });
    const subscriber = track(new VideoTestSubscriber());
    const offer = await bob.updateSubscriptions({
      subscribe: [{ participantId: 'alice', kind: 'video' }],
      unsubscribe: [],
    });
    await bob.acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
    const mid = offer.streams[0]?.mid ?? '';
    await waitFor(() => subscriber.count(mid) >= 20, 'video before the move', twentySeconds);
    const producer = router.getProducer('alice', 'video');

    // Both change network; the publisher offers an ICE restart, the subscriber asks the SFU for one.
    moveLoopbackPeer(publisher.peer, '127.0.0.2');
    moveLoopbackPeer(subscriber.peer, '127.0.0.2');
    publisher.peer.restartIce();
    const restartOffer = await publisher.createOffer();
    await publisher.acceptAnswer(await alice.publish('video', restartOffer));
    const restarted = await bob.updateSubscriptions({ subscribe: [], unsubscribe: [], iceRestart: true });
    expect(restarted.streams).toEqual(offer.streams);
    await bob.acceptSubscriptionAnswer(await subscriber.answer(restarted.sdp));

    await waitFor(
      () => selectedLocalAddress(publisher.peer) === '127.0.0.2',
      'the publisher to use its new address',
      twentySeconds,
    );
    await waitFor(
      () => selectedLocalAddress(subscriber.peer) === '127.0.0.2',
      'the subscriber to use its new address',
      twentySeconds,
    );
    const before = subscriber.count(mid);
    await waitFor(() => subscriber.count(mid) >= before + 40, 'video after the restart', twentySeconds);
    expect(router.getSession('alice')).toBe(alice);
    expect(router.getProducer('alice', 'video')).toBe(producer);
    expect(producer?.consumers.size).toBe(1);
  }, 60_000);

  it('an audio client that moves keeps being heard and hearing the mix after restarting ICE on its connection', async () => {
    sfu = createSfu(movingSfuOptions);
    const router = sfu.createRouter('meeting-audio');
    const alice = router.createSession('alice');
    const bob = router.createSession('bob');
    const aliceClient = track(new AudioTestClient());
    const bobClient = track(new AudioTestClient());
    await aliceClient.acceptAnswer(await alice.answerAudioOffer(await aliceClient.createOffer()));
    await bobClient.acceptAnswer(await bob.answerAudioOffer(await bobClient.createOffer()));
    alice.setAudioEnabled(true);
    bob.setAudioEnabled(true);
    aliceClient.startTone(440);
    bobClient.startTone(660);
    await waitFor(
      () => aliceClient.packetsReceived >= 10 && bobClient.packetsReceived >= 10,
      'the mix both ways before the move',
      twentySeconds,
    );

    moveLoopbackPeer(aliceClient.peer, '127.0.0.2');
    aliceClient.peer.restartIce();
    const restartOffer = await localSdp(aliceClient.peer, 'offer');
    await aliceClient.acceptAnswer(await alice.answerAudioOffer(restartOffer));
    await waitFor(
      () => selectedLocalAddress(aliceClient.peer) === '127.0.0.2',
      'the new address in use',
      twentySeconds,
    );
    const heard = aliceClient.packetsReceived;
    const heardByBob = bobClient.received.length;
    await waitFor(
      () => aliceClient.packetsReceived >= heard + 25 && bobClient.received.length >= heardByBob + 25,
      'the mix both ways after the restart',
      twentySeconds,
    );
    expect(router.getSession('alice')).toBe(alice);
  }, 60_000);
});
