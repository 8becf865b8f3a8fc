import { afterEach, describe, expect, it } from 'vitest';
import { createSfu, type Router, type Sfu, type SfuOptionsInput, type StreamQuality } from '../src/index.js';
import { isVp8KeyframeStart } from '../src/rtp/vp8.js';
import { readVp8Descriptor } from '../src/rtp/vp8-picture-rewriter.js';
import {
  layerFrameBase,
  loopbackSfuOptions,
  type ReceivedPacket,
  readSyntheticVp8,
  SimulcastTestPublisher,
  VideoTestPublisher,
  VideoTestSubscriber,
  waitFor,
} from '../src/testing/index.js';

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

/** Deadline of each wait: generous, as the suite runs on a busy shared machine. */
const patient = 30_000;

/** Quick allocation so tests see layer changes within a second or two. */
const options = {
  ...loopbackSfuOptions,
  bandwidth: { allocationIntervalMs: 100, upgradeHoldMs: 500 },
} satisfies SfuOptionsInput;

async function publishSimulcast(
  router: Router,
  participantId: string,
  transportCc = false,
  kind: 'video' | 'screen' = 'video',
): Promise<SimulcastTestPublisher> {
  const session = router.getSession(participantId) ?? router.createSession(participantId);
  const publisher = track(new SimulcastTestPublisher(undefined, { transportCc }));
  await publisher.acceptAnswer(await session.publish(kind, await publisher.createOffer()));
  publisher.start();
  const producer = router.getProducer(participantId, kind);
  await waitFor(() => producer?.activeLayers().length === 3, 'three active layers at the SFU', patient);
  return publisher;
}

async function subscribe(
  router: Router,
  participantId: string,
  to: string,
  extra: { quality?: StreamQuality; transportCc?: boolean } = {},
): Promise<{ subscriber: VideoTestSubscriber; mid: string }> {
  const session = router.getSession(participantId) ?? router.createSession(participantId);
  const subscriber = track(new VideoTestSubscriber({ transportCc: extra.transportCc === true }));
  const offer = await session.updateSubscriptions({
    subscribe: [{ participantId: to, kind: 'video', quality: extra.quality }],
    unsubscribe: [],
  });
  await session.acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
  const stream = offer.streams.find((entry) => entry.participantId === to);
  if (stream === undefined) throw new Error('no stream in offer');
  return { subscriber, mid: stream.mid };
}

function layerOf(received: ReceivedPacket): number {
  const frame = readSyntheticVp8(received.packet.payload);
  if (frame === undefined) throw new Error('not a synthetic packet');
  return Math.floor(frame.frameNumber / layerFrameBase);
}

/** Layer of the last `count` packets on `mid`, if they all agree. */
function settledLayer(subscriber: VideoTestSubscriber, mid: string, count = 20): number | undefined {
  const recent = subscriber.packets.filter((received) => received.mid === mid).slice(-count);
  if (recent.length < count) return undefined;
  const layers = new Set(recent.map(layerOf));
  return layers.size === 1 ? [...layers][0] : undefined;
}

/**
 * What a decoder needs of one continuous stream: one SSRC, sequence numbers without gaps, picture
 * ids one apart from frame to frame, timestamps never going back between frames, and a keyframe
 * wherever the layer changes (and at the start).
 */
function expectContinuousStream(packets: ReceivedPacket[]): { switches: number } {
  expect(packets.length).toBeGreaterThan(0);
  expect(new Set(packets.map((received) => received.packet.header.ssrc)).size).toBe(1);
  expect(isVp8KeyframeStart(packets[0]?.packet.payload ?? Buffer.alloc(0))).toBe(true);
  let switches = 0;
  let previousPictureId: number | undefined;
  packets.forEach((received, index) => {
    if (index === 0) return;
    const previous = packets[index - 1] as ReceivedPacket;
    const step =
      (received.packet.header.sequenceNumber - previous.packet.header.sequenceNumber + 0x1_0000) % 0x1_0000;
    expect(step).toBe(1);
    if (layerOf(received) !== layerOf(previous)) {
      switches += 1;
      expect(isVp8KeyframeStart(received.packet.payload)).toBe(true);
    }
    const descriptor = readVp8Descriptor(received.packet.payload);
    const startsFrame = ((received.packet.payload[0] ?? 0) & 0x10) !== 0;
    if (startsFrame && descriptor !== undefined) {
      if (previousPictureId !== undefined) {
        expect(descriptor.pictureId).toBe((previousPictureId + 1) % 0x8000);
        const advance =
          (received.packet.header.timestamp - previous.packet.header.timestamp + 2 ** 32) % 2 ** 32;
        expect(advance).toBeGreaterThan(0);
        expect(advance).toBeLessThan(2 ** 31);
      }
      previousPictureId = descriptor.pictureId;
    }
  });
  return { switches };
}

describe('simulcast', () => {
  it('takes three layers from a simulcast publisher and gives a subscriber without feedback the high one, from its keyframe', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('simulcast-high');
    const publisher = await publishSimulcast(router, 'alice');
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice');
    await waitFor(() => subscriber.count(mid) >= 60, 'packets at the subscriber', patient);
    const packets = subscriber.packets.filter((received) => received.mid === mid);
    expect(new Set(packets.map(layerOf))).toEqual(new Set([2]));
    expectContinuousStream(packets);
    const producer = router.getProducer('alice', 'video');
    expect(producer?.layers.map((layer) => layer.rid)).toEqual(['l', 'm', 'h']);
    expect(producer?.activeLayers().map((layer) => layer.rid)).toEqual(['l', 'm', 'h']);
    expect(publisher.keyframeRequests('h')).toBeGreaterThan(0);
    expect(router.requireSession('bob').subscriptionBandwidth).toBeUndefined();
  });

  it('orders layers by the size their keyframes state, not by bitrate, when a larger layer starves below a smaller one', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('simulcast-order');
    const session = router.createSession('alice');
    const publisher = track(
      new SimulcastTestPublisher([
        { rid: 'l', bitrate: 400_000, width: 320 },
        { rid: 'm', bitrate: 100_000, width: 640 },
        { rid: 'h', bitrate: 900_000, width: 1280 },
      ]),
    );
    await publisher.acceptAnswer(await session.publish('video', await publisher.createOffer()));
    publisher.start();
    const producer = router.getProducer('alice', 'video');
    await waitFor(
      () =>
        producer?.layers.length === 3 &&
        producer.layers.every((layer) => layer.bitrate > 0 && layer.frameWidth !== undefined),
      'three layers with a measured bitrate and a keyframe size',
      patient,
    );
    const byRid = new Map(producer?.layers.map((layer) => [layer.rid, layer]));
    expect((byRid.get('m')?.bitrate ?? 0) < (byRid.get('l')?.bitrate ?? 0)).toBe(true);
    expect(producer?.layers.map((layer) => layer.frameWidth)).toEqual([320, 640, 1280]);
    expect(producer?.activeLayers().map((layer) => layer.rid)).toEqual(['l', 'm', 'h']);
  });

  it('keeps receiving every layer of a publisher that lists its SSRCs and drops MID and RID once they are acknowledged, as Firefox does', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('simulcast-firefox');
    const session = router.createSession('alice');
    const publisher = track(new SimulcastTestPublisher(undefined, { signalling: 'firefox' }));
    const offer = await publisher.createOffer();
    expect(offer.match(/^a=ssrc:\d+ cname:/gm)).toHaveLength(3);
    await publisher.acceptAnswer(await session.publish('video', offer));
    publisher.start();
    const producer = router.getProducer('alice', 'video');
    await waitFor(() => producer?.activeLayers().length === 3, 'three active layers at the SFU', patient);
    await waitFor(
      () => publisher.acknowledgedLayers().length === 3,
      'receiver reports of the SFU naming every layer',
      15_000,
    );
    // Packets from now on carry no RID: the SFU must know each layer by its SSRC.
    const before = producer?.layers.map((layer) => layer.packetsReceived) ?? [];
    await waitFor(
      () =>
        producer?.layers.every((layer, index) => layer.packetsReceived > (before[index] ?? 0) + 60) === true,
      'every layer received 60 more packets without RID',
      15_000,
    );
    expect(producer?.activeLayers().map((layer) => layer.rid)).toEqual(['l', 'm', 'h']);
  }, 60_000);

  it('sends a publisher that negotiates transport-cc TWCC reports of everything its layers sent', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('simulcast-publisher-feedback');
    const publisher = await publishSimulcast(router, 'alice', true);
    await waitFor(() => publisher.transportFeedbackReports >= 5, 'TWCC reports at the publisher', patient);
    await waitFor(() => publisher.packetsReportedReceived >= 100, 'packets reported received', patient);
  });

  it('gives a subscriber asking for low quality the low layer', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('simulcast-low');
    await publishSimulcast(router, 'alice');
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice', { quality: 'low' });
    await waitFor(() => subscriber.count(mid) >= 30, 'packets at the subscriber', patient);
    expect(new Set(subscriber.packets.map(layerOf))).toEqual(new Set([0]));
  });

  it('follows a subscriber whose REMB is low to the low layer, then back to the high one when it rises, switching at keyframes without a sequence gap', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('simulcast-remb');
    const publisher = await publishSimulcast(router, 'alice');
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice');
    await waitFor(() => settledLayer(subscriber, mid) === 2, 'the high layer first', patient);

    const lowRequestsBefore = publisher.keyframeRequests('l');
    await subscriber.sendRemb(200_000);
    await waitFor(
      () => router.requireSession('bob').subscriptionBandwidth === 200_000,
      'the REMB at the SFU',
      patient,
    );
    await waitFor(() => settledLayer(subscriber, mid) === 0, 'the low layer after a low REMB', patient);
    expect(publisher.keyframeRequests('l')).toBeGreaterThan(lowRequestsBefore);

    await subscriber.sendRemb(5_000_000);
    await waitFor(() => settledLayer(subscriber, mid) === 2, 'the high layer after the REMB rose', patient);

    const packets = subscriber.packets.filter((received) => received.mid === mid);
    const { switches } = expectContinuousStream(packets);
    expect(switches).toBeGreaterThanOrEqual(2);
    const consumer = router.getProducer('alice', 'video')?.consumers.values().next().value;
    expect(consumer?.stats.layerSwitches).toBe(switches);
  });

  it('pauses a non-simulcast stream for a subscriber whose REMB cannot carry it, and resumes it at a keyframe when the REMB rises', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('single-layer-remb');
    const session = router.createSession('alice');
    const publisher = track(new VideoTestPublisher({ payloadType: 120 }));
    await publisher.acceptAnswer(await session.publish('video', await publisher.createOffer()));
    publisher.start({ bitrate: 800_000, keyframeInterval: 100_000 });
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice');
    await waitFor(() => subscriber.count(mid) >= 30, 'packets before the REMB', patient);
    const producer = router.getProducer('alice', 'video');
    await waitFor(() => (producer?.layers[0]?.bitrate ?? 0) > 500_000, 'a measured layer bitrate', patient);

    await subscriber.sendRemb(150_000);
    const consumer = producer?.consumers.values().next().value;
    await waitFor(() => consumer?.paused === true, 'the stream paused for bob', patient);
    const whilePaused = subscriber.count(mid);
    const sent = publisher.packetsSent;
    await waitFor(() => publisher.packetsSent > sent + 60, 'the publisher still sending', patient);
    expect(subscriber.count(mid)).toBe(whilePaused);

    await subscriber.sendRemb(5_000_000);
    await waitFor(
      () => subscriber.count(mid) > whilePaused + 10,
      'packets again after the REMB rose',
      patient,
    );
    expectContinuousStream(subscriber.packets.filter((received) => received.mid === mid));
  });

  it('follows TWCC feedback: a subscriber whose feedback reports losses above 250 kbit/s drops to the low layer and climbs back to the high one once the limit is lifted', async () => {
    sfu = createSfu({ ...options, bandwidth: { ...options.bandwidth, increasePerSecond: 1 } });
    const router = sfu.createRouter('simulcast-twcc');
    await publishSimulcast(router, 'alice');
    const { subscriber, mid } = await subscribe(router, 'bob', 'alice', { transportCc: true });
    const session = router.requireSession('bob');
    await waitFor(
      () => session.subscriptionBandwidth !== undefined,
      'a transport-feedback estimate',
      patient,
    );
    await waitFor(() => settledLayer(subscriber, mid) === 2, 'the high layer on the unshaped link', patient);

    subscriber.transportFeedback?.limit(250_000);
    await waitFor(
      () => (session.subscriptionBandwidth ?? Infinity) < 400_000,
      'the estimate falling',
      patient,
    );
    await waitFor(() => settledLayer(subscriber, mid) === 0, 'the low layer under the limit', patient);

    subscriber.transportFeedback?.limit(undefined);
    // Each climb now waits for a bandwidth probe (and the hold after the probes that failed under the limit).
    await waitFor(
      () => settledLayer(subscriber, mid) === 2,
      'the high layer after the limit was lifted',
      patient,
    );
    expect(
      expectContinuousStream(subscriber.packets.filter((received) => received.mid === mid)).switches,
    ).toBeGreaterThanOrEqual(2);
  });

  it('keeps a screen share on its layer while camera video steps down under a low REMB, and pauses the camera before the screen share', async () => {
    sfu = createSfu(options);
    const router = sfu.createRouter('simulcast-screen-priority');
    await publishSimulcast(router, 'alice', false, 'video');
    await publishSimulcast(router, 'alice', false, 'screen');
    const bob = router.createSession('bob');
    const subscriber = track(new VideoTestSubscriber());
    // The camera comes first in the subscription: only the priority puts the screen share ahead.
    const offer = await bob.updateSubscriptions({
      subscribe: [
        { participantId: 'alice', kind: 'video' },
        { participantId: 'alice', kind: 'screen' },
      ],
      unsubscribe: [],
    });
    await bob.acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
    const midOf = (kind: string) => offer.streams.find((stream) => stream.kind === kind)?.mid ?? '';
    const [camera, screen] = [midOf('video'), midOf('screen')];
    await waitFor(
      () => settledLayer(subscriber, camera) === 2 && settledLayer(subscriber, screen) === 2,
      'both streams on the high layer without an estimate',
      patient,
    );

    // 1.2 Mbit/s: both low layers (about 0.2) and the screen share's high one (about 0.9) fit, not more.
    await subscriber.sendRemb(1_200_000);
    await waitFor(
      () => (settledLayer(subscriber, camera) ?? 2) < 2 && settledLayer(subscriber, screen) === 2,
      'the camera below the high layer while the screen share keeps it',
      patient,
    );
    const screenPackets = subscriber.count(screen);
    await waitFor(
      () => subscriber.count(screen) > screenPackets + 60,
      'the screen share flowing on',
      patient,
    );
    expect(settledLayer(subscriber, screen, 60)).toBe(2);

    // 220 kbit/s: one low layer (about 0.1) fits after the audio reserve, not two.
    await subscriber.sendRemb(220_000);
    const cameraConsumer = bob.consumers.find((consumer) => consumer.producer.kind === 'video');
    await waitFor(() => cameraConsumer?.paused === true, 'the camera paused', patient);
    await waitFor(() => settledLayer(subscriber, screen) === 0, 'the screen share on its low layer', patient);
    const cameraWhilePaused = subscriber.count(camera);
    const screenWhilePaused = subscriber.count(screen);
    await waitFor(
      () => subscriber.count(screen) > screenWhilePaused + 30,
      'the screen share flowing while the camera is paused',
      patient,
    );
    expect(subscriber.count(camera)).toBe(cameraWhilePaused);
    for (const mid of [camera, screen])
      expectContinuousStream(subscriber.packets.filter((received) => received.mid === mid));
  });
});
