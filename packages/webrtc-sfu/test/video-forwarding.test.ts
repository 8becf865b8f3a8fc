import { afterEach, describe, expect, it } from 'vitest';
import { createSfu, type Router, type Sfu } from '../src/index.js';
import {
  loopbackSfuOptions,
  readSyntheticVp8,
  VideoTestPublisher,
  VideoTestSubscriber,
  waitFor,
} from '../src/testing/index.js';
import { sequenceSteps } from './support/sfu-test-bed.js';

let sfu: Sfu;
const clients: Array<{ close(): Promise<void> }> = [];

function track<T extends { close(): Promise<void> }>(client: T): T {
  clients.push(client);
  return client;
}

afterEach(async () => {
  sfu?.close();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function publish(router: Router, participantId: string): Promise<VideoTestPublisher> {
  const session = router.getSession(participantId) ?? router.createSession(participantId);
  const publisher = track(new VideoTestPublisher({ payloadType: 120 }));
  await publisher.acceptAnswer(await session.publish('video', await publisher.createOffer()));
  return publisher;
}

async function subscribe(
  router: Router,
  participantId: string,
  to: string,
): Promise<{ subscriber: VideoTestSubscriber; mid: string }> {
  const session = router.getSession(participantId) ?? router.createSession(participantId);
  const subscriber = track(new VideoTestSubscriber());
  const offer = await session.updateSubscriptions({
    subscribe: [{ participantId: to, kind: 'video' }],
    unsubscribe: [],
  });
  await session.acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
  const stream = offer.streams.find((entry) => entry.participantId === to);
  if (stream === undefined) throw new Error('no stream in offer');
  return { subscriber, mid: stream.mid };
}

describe('video forwarding', () => {
  it("forwards A's video to B after B subscribes, starting at a keyframe, with B's SSRC and payload type", async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter('meeting-1');
    const publisher = await publish(router, 'alice');
    publisher.start({ bitrate: 300_000, keyframeInterval: 1_000 });
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice');

    await waitFor(() => subscriber.count(mid) >= 30, 'video packets at the subscriber');
    const first = subscriber.packets.find((received) => received.mid === mid);
    expect(first?.packet.payload[0] === 0x10 && first.packet.payload[1] === 0x00).toBe(true);
    const frames = subscriber.packets.map(
      (received) => readSyntheticVp8(received.packet.payload)?.frameNumber,
    );
    expect(frames.every((frame) => frame !== undefined)).toBe(true);
    const sequenceNumbers = subscriber.packets.map((received) => received.packet.header.sequenceNumber);
    expect(sequenceSteps(sequenceNumbers).every((step) => step === 1)).toBe(true);
    const publisherSsrc = publisher.peer.getSenders()[0]?.ssrc;
    const ssrcs = new Set(subscriber.packets.map((received) => received.packet.header.ssrc));
    expect(ssrcs.size).toBe(1);
    expect(ssrcs.has(publisherSsrc ?? -1)).toBe(false);
    expect(new Set(subscriber.packets.map((received) => received.packet.header.payloadType))).toEqual(
      new Set([96]),
    );
    expect(router.getProducer('alice', 'video')?.consumers.size).toBe(1);
  });

  it('counts sessions, streams and forwarded packets and bytes in sfu.stats(), and keeps the totals after close', async () => {
    sfu = createSfu(loopbackSfuOptions);
    expect(sfu.stats()).toMatchObject({ routers: 0, sessions: 0, videoPacketsForwarded: 0 });
    const router = sfu.createRouter('meeting-stats');
    const publisher = await publish(router, 'alice');
    publisher.start({ bitrate: 300_000, keyframeInterval: 1_000 });
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice');
    await waitFor(() => subscriber.count(mid) >= 30, 'video packets at the subscriber');

    const during = sfu.stats();
    expect(during).toMatchObject({ routers: 1, sessions: 2, producers: 1, consumers: 1, sessionsOpened: 2 });
    const received = subscriber.packets.filter((entry) => entry.mid === mid);
    expect(during.videoPacketsForwarded).toBeGreaterThanOrEqual(received.length);
    const receivedBytes = received.reduce((sum, entry) => sum + 12 + entry.packet.payload.length, 0);
    expect(during.videoBytesForwarded).toBeGreaterThanOrEqual(receivedBytes);
    expect(during.videoPacketsReceived).toBeGreaterThanOrEqual(during.videoPacketsForwarded);
    expect(during.videoBytesReceived).toBeGreaterThan(0);

    router.close();
    const after = sfu.stats();
    expect(after).toMatchObject({ routers: 0, sessions: 0, producers: 0, consumers: 0, sessionsOpened: 2 });
    expect(after.videoPacketsForwarded).toBeGreaterThanOrEqual(during.videoPacketsForwarded);
    expect(after.videoBytesForwarded).toBeGreaterThanOrEqual(during.videoBytesForwarded);
  });

  it('asks the publisher for a keyframe when a subscriber attaches', async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter();
    const publisher = await publish(router, 'alice');
    publisher.start({ bitrate: 200_000, keyframeInterval: 100_000 });
    await waitFor(() => publisher.framesSent > 10, 'frames sent');
    const before = publisher.keyframeRequests;
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice');
    await waitFor(() => publisher.keyframeRequests > before, 'a PLI at the publisher');
    await waitFor(() => subscriber.count(mid) > 0, 'packets after the keyframe');
  });

  it('asks for at most one keyframe per keyframeRequestIntervalMs, however many subscribers attach', async () => {
    const requestsFor = async (keyframeRequestIntervalMs: number) => {
      sfu = createSfu({ ...loopbackSfuOptions, limits: { keyframeRequestIntervalMs } });
      const router = sfu.createRouter();
      const publisher = await publish(router, 'alice');
      publisher.start({ bitrate: 200_000, keyframeInterval: 100_000 });
      await waitFor(() => publisher.framesSent > 5, 'frames sent');
      for (const subscriber of ['bob', 'carol', 'dave']) await subscribe(router, subscriber, 'alice');
      const producer = router.getProducer('alice', 'video');
      await waitFor(() => producer?.consumers.size === 3, 'three consumers');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const requests = producer?.stats.keyframeRequests;
      sfu.close();
      await Promise.all(clients.splice(0).map((client) => client.close()));
      return requests;
    };
    expect(await requestsFor(60_000)).toBe(1);
    expect(await requestsFor(0)).toBeGreaterThanOrEqual(3);
  });

  it('forwards nothing while the stream is disabled and resumes at a keyframe when enabled', async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter();
    const publisher = await publish(router, 'alice');
    publisher.start({ bitrate: 200_000, keyframeInterval: 100_000 });
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice');
    await waitFor(() => subscriber.count(mid) > 10, 'packets before disabling');

    expect(router.requireSession('alice').setStreamEnabled('video', false)).toBe(true);
    expect(router.requireSession('alice').setStreamEnabled('video', false)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const whileDisabled = subscriber.count(mid);
    const sentWhileDisabled = publisher.packetsSent;
    await waitFor(() => publisher.packetsSent > sentWhileDisabled + 20, 'publisher still sending');
    expect(subscriber.count(mid)).toBe(whileDisabled);

    subscriber.packets.length = 0;
    router.requireSession('alice').setStreamEnabled('video', true);
    await waitFor(() => subscriber.count(mid) > whileDisabled + 5, 'packets after enabling');
    const resumed = subscriber.packets[0]?.packet.payload;
    expect(resumed?.[0] === 0x10 && resumed[1] === 0x00).toBe(true);
  });
});

describe('retransmission', () => {
  it("answers a subscriber's NACK by resending the packet from the consumer's buffer", async () => {
    sfu = createSfu(loopbackSfuOptions);
    const router = sfu.createRouter();
    const publisher = await publish(router, 'alice');
    publisher.start({ bitrate: 200_000, keyframeInterval: 100_000 });
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice');
    await waitFor(() => subscriber.count(mid) > 20, 'packets before the NACK');
    const wanted = subscriber.packets[5]?.packet;
    if (wanted === undefined) throw new Error('no packet');
    publisher.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = subscriber.packets.length;

    await subscriber.sendNack(mid, [wanted.header.sequenceNumber]);
    await waitFor(() => subscriber.packets.length > before, 'the retransmission');
    const again = subscriber.packets.slice(before);
    expect(again.map((received) => received.packet.header.sequenceNumber)).toEqual([
      wanted.header.sequenceNumber,
    ]);
    expect(again[0]?.packet.payload.equals(wanted.payload)).toBe(true);
    const consumer = router.getProducer('alice', 'video')?.consumers.values().next().value;
    expect(consumer?.stats.retransmissions).toBe(1);
  });

  it('ignores a NACK for a packet older than the retransmission buffer', async () => {
    sfu = createSfu({ ...loopbackSfuOptions, limits: { retransmissionPackets: 16 } });
    const router = sfu.createRouter();
    const publisher = await publish(router, 'alice');
    publisher.start({ bitrate: 300_000, keyframeInterval: 100_000 });
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice');
    await waitFor(() => subscriber.count(mid) > 40, 'more packets than the buffer holds');
    publisher.stop();
    const old = subscriber.packets[0]?.packet.header.sequenceNumber ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = subscriber.packets.length;
    await subscriber.sendNack(mid, [old]);
    const consumer = router.getProducer('alice', 'video')?.consumers.values().next().value;
    await waitFor(() => consumer?.stats.nacksReceived === 1, 'the NACK at the SFU');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(subscriber.packets.length).toBe(before);
    expect(consumer?.stats.retransmissions).toBe(0);
  });
});
