import { describe, expect, it } from 'vitest';
import {
  layerFrameBase,
  type ReceivedPacket,
  readSyntheticVp8,
  SimulcastTestPublisher,
  VideoTestSubscriber,
  waitFor,
} from '../src/testing/index.js';
import { sfuTestBed } from './support/sfu-test-bed.js';

// A simulcast publisher's RTX streams are listed nowhere and their packets name their layer by the
// repaired RID header extension only. werift routes by SSRC or RID, so it dropped them: a packet
// the SFU lost and asked for came back and was thrown away, and the layer waited for a keyframe.

const bed = sfuTestBed();

/** Deadline of each wait: generous, as the suite runs on a busy shared machine. */
const patient = 30_000;

/** Frame numbers of the low layer's packets at the subscriber (one packet per frame at 100 kbit/s). */
function framesOf(packets: ReceivedPacket[]): Set<number> {
  return new Set(packets.map((received) => readSyntheticVp8(received.packet.payload)?.frameNumber ?? -1));
}

/** Sequence numbers missing between the lowest and the highest received, across the wrap. */
function missingSequenceNumbers(packets: ReceivedPacket[]): number[] {
  const numbers = packets.map((received) => received.packet.header.sequenceNumber);
  const first = numbers[0] ?? 0;
  const offsets = new Set(numbers.map((number) => (number - first + 0x1_0000) % 0x1_0000));
  const highest = Math.max(...offsets);
  const missing: number[] = [];
  for (let offset = 0; offset <= highest; offset += 1) {
    if (!offsets.has(offset)) missing.push((first + offset) % 0x1_0000);
  }
  return missing;
}

/** Sequence numbers the subscriber received more than once. */
function repeatedSequenceNumbers(packets: ReceivedPacket[]): number[] {
  const seen = new Set<number>();
  const repeated = new Set<number>();
  for (const received of packets) {
    const number = received.packet.header.sequenceNumber;
    if (seen.has(number)) repeated.add(number);
    seen.add(number);
  }
  return [...repeated];
}

/**
 * A simulcast publisher that answers NACKs with RTX (alice), and a subscriber of its low layer
 * (bob) that got 30 packets of it.
 */
async function watchLowLayer(name: string, sfu = bed.start()) {
  const router = sfu.createRouter(name);
  const publisher = bed.track(new SimulcastTestPublisher(undefined, { retransmissions: true }));
  const session = router.createSession('alice');
  await publisher.acceptAnswer(await session.publish('video', await publisher.createOffer()));
  publisher.start();
  const producer = router.getProducer('alice', 'video');
  await waitFor(() => producer?.activeLayers().length === 3, 'three active layers at the SFU', patient);

  const subscriber = bed.track(new VideoTestSubscriber());
  const offer = await router.createSession('bob').updateSubscriptions({
    subscribe: [{ participantId: 'alice', kind: 'video', quality: 'low' }],
    unsubscribe: [],
  });
  await router.requireSession('bob').acceptSubscriptionAnswer(await subscriber.answer(offer.sdp));
  const mid = offer.streams.find((stream) => stream.participantId === 'alice')?.mid ?? '';
  await waitFor(() => subscriber.count(mid) >= 30, 'the low layer at the subscriber', patient);
  return { publisher, producer, subscriber, mid };
}

describe('retransmissions of a simulcast publisher', () => {
  it('reach their layer: packets the uplink lost arrive at the subscriber by RTX, without a keyframe request', async () => {
    const { publisher, producer, subscriber, mid } = await watchLowLayer('simulcast-retransmission');

    // Five packets of the low layer, each from a different frame, never reach the SFU.
    const keyframeRequestsBefore = publisher.keyframeRequests('l');
    let seen = 0;
    publisher.dropFilter = (rid) => {
      if (rid !== 'l' || publisher.droppedPackets.length >= 5) return false;
      seen += 1;
      return seen % 7 === 0;
    };
    await waitFor(() => publisher.droppedPackets.length === 5, 'five dropped packets', patient);
    const droppedFrames = publisher.droppedPackets.map(
      (dropped) => (dropped.sequenceNumber - 1000 + 0x1_0000) % 0x1_0000,
    );
    const stream = () => subscriber.packets.filter((received) => received.mid === mid);
    await waitFor(
      () => droppedFrames.every((frame) => framesOf(stream()).has(frame)),
      'the dropped frames at the subscriber',
      patient,
    );

    const packets = stream();
    expect(Math.max(...framesOf(packets))).toBeLessThan(layerFrameBase);
    expect(missingSequenceNumbers(packets)).toEqual([]);
    const asked = new Set(publisher.nackedSequenceNumbers('l'));
    expect(publisher.droppedPackets.every((dropped) => asked.has(dropped.sequenceNumber))).toBe(true);
    expect(publisher.retransmissionsSent('l')).toBeGreaterThanOrEqual(5);
    const lowLayer = producer?.layers.find((layer) => layer.rid === 'l');
    expect(lowLayer?.retransmissionsReceived).toBeGreaterThanOrEqual(5);
    // Nothing but the real losses was asked for, on any layer.
    expect([...asked].sort()).toEqual(
      publisher.droppedPackets.map((dropped) => dropped.sequenceNumber).sort(),
    );
    expect(publisher.nackedSequenceNumbers('m')).toEqual([]);
    expect(publisher.nackedSequenceNumbers('h')).toEqual([]);
    expect(publisher.keyframeRequests('l')).toBe(keyframeRequestsBefore);
  }, 120_000);

  it('are forwarded once: RTX copies of packets the SFU already has (libwebrtc pads probes with them) reach no subscriber', async () => {
    const sfu = bed.start();
    const { publisher, producer, subscriber, mid } = await watchLowLayer('simulcast-repeats', sfu);

    // Three copies of each of the last five packets of the forwarded layer, and of the high layer.
    const repeatedBefore = producer?.stats.packetsRepeated ?? 0;
    const repeated = [1, 2, 3].flatMap(() => [
      ...publisher.repeatLastPackets('l', 5),
      ...publisher.repeatLastPackets('h', 5),
    ]);
    expect(repeated).toHaveLength(30);
    // The stream goes on after the copies (sent before its next frames, on the same transport):
    // what the subscriber got until then, each packet once.
    const countNow = subscriber.count(mid);
    await waitFor(() => subscriber.count(mid) >= countNow + 10, 'the low layer going on', patient);
    const packets = subscriber.packets.filter((received) => received.mid === mid);
    expect(repeatedSequenceNumbers(packets)).toEqual([]);
    expect(missingSequenceNumbers(packets)).toEqual([]);
    await waitFor(
      () => (producer?.stats.packetsRepeated ?? 0) - repeatedBefore >= 30,
      'thirty copies counted at the SFU',
      patient,
    );
    expect(producer?.stats.packetsRepeated).toBe(repeatedBefore + 30);
    expect(sfu.stats().videoPacketsRepeated).toBeGreaterThanOrEqual(30);
  }, 120_000);
});
