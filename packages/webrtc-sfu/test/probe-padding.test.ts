import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExtensionProfiles, RTP_EXTENSION_URI, type RtpPacket } from 'werift';
import type { Consumer, Router } from '../src/index.js';
import { nativeSrtpAvailable } from '../src/rtp/srtp-sealing.js';
import { waitFor } from '../src/testing/index.js';
import { forwardToTransportCcSubscriber, sequenceSteps, sfuTestBed } from './support/sfu-test-bed.js';

// Bandwidth probes send padding-only packets on the subscriber's RTX stream (`Consumer.sendPadding`,
// what the prober calls). They leave through the same direct sender as the video: these tests read
// them where a werift subscriber decrypts them.

const bed = sfuTestBed();

afterEach(() => {
  vi.restoreAllMocks();
});

/** Deadline of each wait: generous, as the suite runs on a busy shared machine. */
const patient = 60_000;

/** The RTX SSRC and payload type and the transport-wide extension id the SFU offered. */
function rtxStreamOf(offer: string): { rtxSsrc: number; rtxPayloadType: number; transportCcId: number } {
  const group = /a=ssrc-group:FID \d+ (\d+)/.exec(offer);
  const rtx = /a=rtpmap:(\d+) rtx\/90000/.exec(offer);
  const transportCc = new RegExp(`a=extmap:(\\d+) ${RTP_EXTENSION_URI.transportWideCC}`).exec(offer);
  if (group?.[1] === undefined || rtx?.[1] === undefined || transportCc?.[1] === undefined) {
    throw new Error('expected an RTX stream and transport-wide sequence numbers in the offer');
  }
  return { rtxSsrc: Number(group[1]), rtxPayloadType: Number(rtx[1]), transportCcId: Number(transportCc[1]) };
}

function onlyConsumer(router: Router): Consumer {
  const consumer = [...(router.getProducer('alice', 'video')?.consumers ?? [])][0];
  if (consumer === undefined) throw new Error('no consumer');
  return consumer;
}

function transportNumberOf(packet: RtpPacket, transportCcId: number): number | undefined {
  const extension = packet.header.extensions.find((candidate) => candidate.id === transportCcId);
  return extension === undefined || extension.payload.length < 2
    ? undefined
    : extension.payload.readUInt16BE(0);
}

function isPadding(packet: RtpPacket): boolean {
  return packet.header.padding && packet.payload.length === 0;
}

/** Sends one padding packet of `count` bytes; what `Consumer.sendPadding` returned, copied. */
function sendPadding(consumer: Consumer, count: number): { transportSequenceNumber: number; bytes: number } {
  const sent = consumer.sendPadding(count);
  if (sent === undefined) throw new Error('the consumer sent no padding');
  return { ...sent };
}

// Without a C compiler the workspace installs without the addon (werift's cipher seals then); CI
// has one and must check the addon's part.
const addonExpected = nativeSrtpAvailable() || process.env.CI === 'true';

/**
 * The SSRC of every packet the native addon seals from now on (a spy that passes each call on), or
 * `undefined` when the addon is not expected here.
 */
function recordNativeSeals(): number[] | undefined {
  if (!addonExpected) return undefined;
  const native = createRequire(import.meta.url)(
    '@collab-suite/srtp-native',
  ) as typeof import('@collab-suite/srtp-native');
  const ssrcs: number[] = [];
  const seal = native.SrtpSealer.prototype.seal;
  vi.spyOn(native.SrtpSealer.prototype, 'seal').mockImplementation(function (
    this: InstanceType<typeof native.SrtpSealer>,
    packet,
    headerLength,
    payload,
    rolloverCounter,
  ) {
    ssrcs.push(packet.readUInt32BE(8));
    return seal.call(this, packet, headerLength, payload, rolloverCounter);
  });
  return ssrcs;
}

describe('probe padding on the wire', { timeout: 120_000 }, () => {
  it('reaches a werift subscriber decrypted, on the RTX SSRC, with the P bit, its padding count and its transport-wide number, sealed like the video', async () => {
    const sealed = recordNativeSeals();
    const { router, subscriber, mid, offer } = await forwardToTransportCcSubscriber(bed);
    const { rtxSsrc, rtxPayloadType, transportCcId } = rtxStreamOf(offer);
    const consumer = onlyConsumer(router);
    const received: RtpPacket[] = [];
    subscriber.onTransportPacket = (packet) => {
      if (packet.header.ssrc === rtxSsrc && isPadding(packet)) received.push(packet);
    };
    await waitFor(() => subscriber.count(mid) >= 10, 'video at the subscriber', patient);

    const counts = [1, 2, 17, 100, 254, 255, 255];
    const sent = counts.map((count) => sendPadding(consumer, count));
    await waitFor(() => received.length >= sent.length, 'the padding at the subscriber', patient);

    expect(received.length).toBe(sent.length);
    received.forEach((packet, index) => {
      expect(packet.header.payloadType).toBe(rtxPayloadType);
      expect(packet.header.paddingSize).toBe(counts[index]);
      expect(transportNumberOf(packet, transportCcId)).toBe(sent[index]?.transportSequenceNumber);
      // The size the prober counts: the RTP header and the padding.
      expect(sent[index]?.bytes).toBe(packet.header.serializeSize + (counts[index] ?? 0));
    });
    expect(new Set(sequenceSteps(received.map((packet) => packet.header.sequenceNumber)))).toEqual(
      new Set([1]),
    );
    expect(new Set(sequenceSteps(sent.map((result) => result.transportSequenceNumber)))).toEqual(
      new Set([1]),
    );
    // The native addon seals the padding like the video, not werift's cipher object per packet.
    if (sealed !== undefined) expect(sealed.filter((ssrc) => ssrc === rtxSsrc).length).toBe(sent.length);
  });

  it("keeps the RTX SSRC's own rollover counter: padding across the wrap of its sequence number decrypts, and so does the video after it", async () => {
    const { router, subscriber, mid, offer } = await forwardToTransportCcSubscriber(bed);
    const { rtxSsrc } = rtxStreamOf(offer);
    const consumer = onlyConsumer(router);
    const numbers: number[] = [];
    subscriber.onTransportPacket = (packet) => {
      if (packet.header.ssrc === rtxSsrc && isPadding(packet)) numbers.push(packet.header.sequenceNumber);
    };
    await waitFor(() => subscriber.count(mid) >= 10, 'video at the subscriber', patient);

    // The RTX stream starts at a random number: padding until its sequence number wrapped and went
    // 100 past 0, while the video goes on.
    const wrapAt = () =>
      numbers.findIndex((number, index) => index > 0 && number < (numbers[index - 1] ?? 0));
    let sent = 0;
    while (wrapAt() < 0 || numbers.length - wrapAt() < 100) {
      if (sent > 0x1_0000 + 200) throw new Error('expected the RTX sequence number to wrap');
      // In batches the sockets' buffers hold, each awaited: a lost datagram is not a decryption failure.
      for (let index = 0; index < 100; index += 1) sendPadding(consumer, 1);
      sent += 100;
      const deadline = performance.now() + patient;
      while (numbers.length < sent) {
        if (performance.now() > deadline) {
          throw new Error(`expected ${sent} padding packets at the subscriber but ${numbers.length} came`);
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    expect(numbers.length).toBe(sent);
    expect(numbers[wrapAt()]).toBeLessThan(100);
    // Retransmissions may take RTX numbers in between, never a step back.
    expect(sequenceSteps(numbers).every((step) => step >= 1 && step < 100)).toBe(true);
    // werift's rollover state is per SSRC: had the padding moved the video's, the subscriber would
    // drop the video from here on.
    const videoBefore = subscriber.count(mid);
    await waitFor(() => subscriber.count(mid) >= videoBefore + 30, 'video after the wrap', patient);
  }, 300_000);

  it('interleaved with the video, leaves in the order of its transport-wide numbers', async () => {
    const { router, subscriber, mid, offer } = await forwardToTransportCcSubscriber(bed);
    const { transportCcId } = rtxStreamOf(offer);
    const consumer = onlyConsumer(router);
    const arrivals: Array<{ number: number; padding: boolean }> = [];
    subscriber.onTransportPacket = (packet) => {
      const number = transportNumberOf(packet, transportCcId);
      if (number !== undefined) arrivals.push({ number, padding: isPadding(packet) });
    };
    await waitFor(() => subscriber.count(mid) >= 10, 'video at the subscriber', patient);

    // As the prober does between video packets: padding right after each forwarded packet.
    let paddingSent = 0;
    const estimator = consumer.onPacketSent;
    consumer.onPacketSent = (transportSequenceNumber, bytes, nowMs) => {
      estimator?.(transportSequenceNumber, bytes, nowMs);
      if (paddingSent >= 200) return;
      paddingSent += 2;
      consumer.sendPadding(255);
      consumer.sendPadding(40);
    };
    await waitFor(
      () => arrivals.filter((arrival) => arrival.padding).length >= 200,
      'the padding sent between video packets',
      patient,
    );

    const steps = sequenceSteps(arrivals.map((arrival) => arrival.number));
    // Strictly increasing in arrival order (a step of 0x8000 or more would be a step back).
    expect(steps.every((step) => step >= 1 && step < 0x8000)).toBe(true);
    const switches = arrivals.filter(
      (arrival, index) => index > 0 && arrival.padding !== arrivals[index - 1]?.padding,
    );
    expect(switches.length).toBeGreaterThanOrEqual(100);
  });

  it("falls back to werift's send path for an extension id above 14: padding and retransmissions still arrive decrypted, numbered in two-byte elements", async () => {
    const { router, subscriber, mid, offer } = await forwardToTransportCcSubscriber(bed, {
      transportCcId: 15,
    });
    const { rtxSsrc } = rtxStreamOf(offer);
    const consumer = onlyConsumer(router);
    const reported = new Set<number>();
    const estimator = consumer.onPacketSent;
    consumer.onPacketSent = (transportSequenceNumber, bytes, nowMs) => {
      reported.add(transportSequenceNumber);
      estimator?.(transportSequenceNumber, bytes, nowMs);
    };
    const padding: RtpPacket[] = [];
    const retransmissions: RtpPacket[] = [];
    subscriber.onTransportPacket = (packet) => {
      if (packet.header.ssrc !== rtxSsrc) return;
      (isPadding(packet) ? padding : retransmissions).push(packet);
    };
    await waitFor(() => subscriber.count(mid) >= 20, 'video at the subscriber', patient);

    const counts = [1, 100, 255];
    const sent = counts.map((count) => sendPadding(consumer, count));
    // Not the newest packet: a NACK within a round trip of a packet's sending crossed it and is not answered.
    const wanted = subscriber.packets.filter((entry) => entry.mid === mid).at(-10)?.packet
      .header.sequenceNumber;
    if (wanted === undefined) throw new Error('no video packet');
    await subscriber.sendNack(mid, [wanted]);
    await waitFor(
      () => padding.length >= counts.length && retransmissions.length >= 1,
      'the padding and the retransmission at the subscriber',
      patient,
    );

    expect(padding.length).toBe(counts.length);
    padding.forEach((packet, index) => {
      // One-byte header elements cannot carry id 15: werift's path, with two-byte elements.
      expect(packet.header.extensionProfile).toBe(ExtensionProfiles.TwoByte);
      expect(packet.header.paddingSize).toBe(counts[index]);
      expect(transportNumberOf(packet, 15)).toBe(sent[index]?.transportSequenceNumber);
      expect(sent[index]?.bytes).toBe(packet.header.serializeSize + (counts[index] ?? 0));
    });
    const retransmission = retransmissions[0];
    expect(retransmission?.header.extensionProfile).toBe(ExtensionProfiles.TwoByte);
    // RFC 4588: the original sequence number leads the RTX payload.
    expect(retransmission?.payload.readUInt16BE(0)).toBe(wanted);
    const number = retransmission === undefined ? undefined : transportNumberOf(retransmission, 15);
    expect(number).toBeDefined();
    // The estimator hears of the retransmission's number like any packet's.
    expect(reported.has(number ?? -1)).toBe(true);
  });
});
