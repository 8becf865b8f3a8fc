import { describe, expect, it } from 'vitest';
import {
  sendClientHelloBeforeNomination,
  VideoTestPublisher,
  VideoTestSubscriber,
  waitFor,
} from '../src/testing/index.js';
import { offerVideoSubscription, publishVideo, sfuTestBed } from './support/sfu-test-bed.js';

const bed = sfuTestBed();

describe('DTLS setup', () => {
  it('answers a ClientHello that reached the SFU before its ICE side nominated, without a retransmission', async () => {
    const router = bed.start().createRouter('meeting');
    const publisher = bed.track(new VideoTestPublisher());
    const subscriber = bed.track(new VideoTestSubscriber());
    await publishVideo(router, 'alice', publisher);
    const offer = await offerVideoSubscription(router, 'bob', 'alice');
    const bob = router.requireSession('bob');
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
