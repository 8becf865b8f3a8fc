import { afterEach, describe, expect, it } from 'vitest';
import { createSfu, type Sfu } from '../src/index.js';
import {
  loopbackSfuOptions,
  sendClientHelloBeforeNomination,
  VideoTestPublisher,
  VideoTestSubscriber,
  waitFor,
} from '../src/testing/index.js';

let sfu: Sfu;
const clients: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  sfu?.close();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

describe('DTLS setup', () => {
  it('answers a ClientHello that reached the SFU before its ICE side nominated, without a retransmission', async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter('meeting');
    const alice = router.createSession('alice');
    const bob = router.createSession('bob');
    const publisher = new VideoTestPublisher();
    const subscriber = new VideoTestSubscriber();
    clients.push(publisher, subscriber);
    await publisher.acceptAnswer(await alice.publish('video', await publisher.createOffer()));
    const offer = await bob.updateSubscriptions({
      subscribe: [{ participantId: 'alice', kind: 'video' }],
      unsubscribe: [],
    });
    const answer = await subscriber.answer(offer.sdp);
    // The SFU offers, so it is the DTLS server and the side that nominates; the subscriber's
    // ClientHello now reaches it while it still waits for the answer to its nominating check.
    const counts = sendClientHelloBeforeNomination(subscriber.peer);
    await bob.acceptSubscriptionAnswer(answer);
    publisher.start({ bitrate: 200_000 });

    await waitFor(
      () => subscriber.packets.length > 0,
      'media from the SFU (the early ClientHello was not answered, its retransmissions are not sent)',
      20_000,
    );

    expect(counts.responsesHeld).toBeGreaterThan(0);
    expect(counts.clientHellosSent).toBe(1);
    expect(subscriber.peer.connectionState).toBe('connected');
  });
});
