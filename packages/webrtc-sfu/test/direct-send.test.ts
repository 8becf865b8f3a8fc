import { describe, expect, it } from 'vitest';
import { ExtensionProfiles, RTP_EXTENSION_URI, type RtpPacket } from 'werift';
import { loopbackSfuOptions, waitFor } from '../src/testing/index.js';
import { forwardToTransportCcSubscriber, sequenceSteps, sfuTestBed } from './support/sfu-test-bed.js';

// Forwarded video leaves through DirectRtpSender, which writes headers and counters werift's own
// sendRtp used to write: these tests read them where a receiver does.

const bed = sfuTestBed();

/** What werift's receiver keeps of the sender reports it got, by SSRC. */
interface ReceiverReportView {
  remotePacketCountBySsrc: Record<number, number>;
  remoteOctetCountBySsrc: Record<number, number>;
}

describe('forwarded packets on the wire', () => {
  it('carry one transport-wide sequence number each, consecutive', async () => {
    // No bandwidth probes: their padding takes numbers too (a loaded machine's feedback can pause
    // the stream at first, and a probe then resumes it).
    const { subscriber, mid } = await forwardToTransportCcSubscriber(bed, {
      sfu: { ...loopbackSfuOptions, bandwidth: { probe: { enabled: false } } },
    });
    await waitFor(() => subscriber.count(mid) >= 60, 'video packets at the subscriber');

    const transceiver = subscriber.peer.getTransceivers().find((candidate) => candidate.mid === mid);
    const idOf = (uri: string) =>
      transceiver?.headerExtensions.find((extension) => extension.uri === uri)?.id;
    const transportCcId = idOf(RTP_EXTENSION_URI.transportWideCC);
    expect(transportCcId).toBeDefined();
    const received = subscriber.packets.filter((entry) => entry.mid === mid).slice(0, 60);
    // Subscriptions negotiate transport-wide sequence numbers only (SSRCs identify the streams).
    expect(new Set(received.map(({ packet }) => packet.header.extensions.length))).toEqual(new Set([1]));
    const numbers = received.map(({ packet }) =>
      packet.header.extensions.find((extension) => extension.id === transportCcId)?.payload.readUInt16BE(0),
    );
    expect(numbers.every((value) => value !== undefined)).toBe(true);
    expect(new Set(sequenceSteps(numbers))).toEqual(new Set([1]));
    // The subscriber reports on these numbers in its transport-wide feedback.
    await waitFor(
      () => (subscriber.transportFeedback?.sent ?? 0) > 0,
      'transport-wide feedback from the subscriber',
    );
  });

  it("are encrypted by werift's own cipher with srtp.native off, and the subscriber decrypts them", async () => {
    const { router, subscriber, mid } = await forwardToTransportCcSubscriber(bed, {
      sfu: { ...loopbackSfuOptions, srtp: { native: false } },
    });
    await waitFor(() => subscriber.count(mid) >= 60, 'video packets at the subscriber');
    const consumer = [...(router.getProducer('alice', 'video')?.consumers ?? [])][0];
    const received = subscriber.packets.filter((entry) => entry.mid === mid).slice(0, 60);
    expect(new Set(sequenceSteps(received.map(({ packet }) => packet.header.sequenceNumber)))).toEqual(
      new Set([1]),
    );
    expect(consumer?.stats.packetsSent ?? 0).toBeGreaterThanOrEqual(60);
  });

  it("fall back to werift's sendRtp for an extension id above 14, numbered like the direct path", async () => {
    const { router, subscriber, mid } = await forwardToTransportCcSubscriber(bed, { transportCcId: 15 });
    const consumer = [...(router.getProducer('alice', 'video')?.consumers ?? [])][0];
    if (consumer === undefined) throw new Error('no consumer');
    const reported = new Set<number>();
    const estimator = consumer.onPacketSent;
    consumer.onPacketSent = (transportSequenceNumber, bytes, nowMs) => {
      reported.add(transportSequenceNumber);
      estimator?.(transportSequenceNumber, bytes, nowMs);
    };
    const numberOf = (packet: RtpPacket) =>
      packet.header.extensions.find((extension) => extension.id === 15)?.payload.readUInt16BE(0);
    const stream = () => subscriber.packets.filter((entry) => entry.mid === mid);
    // Loopback keeps the order: once a packet sent after the hook arrived, so were all before it.
    await waitFor(() => {
      const last = stream().at(-1)?.packet;
      return last !== undefined && reported.has(numberOf(last) ?? -1);
    }, 'a packet numbered after the hook');
    const first = stream().length;
    await waitFor(() => stream().length >= first + 60, 'video packets at the subscriber');

    const received = stream().slice(first, first + 60);
    // One-byte header elements cannot carry id 15: werift's own path, with two-byte elements.
    expect(new Set(received.map(({ packet }) => packet.header.extensionProfile))).toEqual(
      new Set([ExtensionProfiles.TwoByte]),
    );
    const numbers = received.map(({ packet }) => numberOf(packet));
    expect(numbers.every((value) => value !== undefined && reported.has(value))).toBe(true);
    expect(new Set(sequenceSteps(numbers))).toEqual(new Set([1]));
    await waitFor(
      () => (subscriber.transportFeedback?.sent ?? 0) > 0,
      'transport-wide feedback from the subscriber',
    );
  });

  it("keep werift's sender reports true: packet and octet counts of what was forwarded", async () => {
    const { router, subscriber, mid } = await forwardToTransportCcSubscriber(bed);
    const transceiver = subscriber.peer.getTransceivers().find((candidate) => candidate.mid === mid);
    const receiver = transceiver?.receiver as unknown as ReceiverReportView | undefined;
    if (receiver === undefined) throw new Error('no receiver for the forwarded stream');
    const ssrcOf = () => subscriber.packets.find((entry) => entry.mid === mid)?.packet.header.ssrc;
    await waitFor(() => {
      const ssrc = ssrcOf();
      return ssrc !== undefined && (receiver.remotePacketCountBySsrc[ssrc] ?? 0) > 10;
    }, 'a sender report counting forwarded packets');

    const ssrc = ssrcOf() ?? -1;
    const consumer = [...(router.getProducer('alice', 'video')?.consumers ?? [])][0];
    const reportedPackets = receiver.remotePacketCountBySsrc[ssrc] ?? 0;
    const reportedOctets = receiver.remoteOctetCountBySsrc[ssrc] ?? 0;
    expect(reportedPackets).toBeLessThanOrEqual(consumer?.stats.packetsSent ?? 0);
    const payloadBytes = subscriber.packets
      .filter((entry) => entry.mid === mid)
      .slice(0, reportedPackets)
      .reduce((sum, entry) => sum + entry.packet.payload.length, 0);
    // The report counts payload octets of the packets it counts: the first ones the subscriber got.
    expect(reportedOctets).toBe(payloadBytes);
  });

  it('give a retransmission a transport-wide number of its own and report it to the estimator', async () => {
    const { router, publisher, subscriber, mid } = await forwardToTransportCcSubscriber(bed);
    const consumer = [...(router.getProducer('alice', 'video')?.consumers ?? [])][0];
    if (consumer === undefined) throw new Error('no consumer');
    const reported: number[] = [];
    const estimator = consumer.onPacketSent;
    consumer.onPacketSent = (transportSequenceNumber, bytes, nowMs) => {
      reported.push(transportSequenceNumber);
      estimator?.(transportSequenceNumber, bytes, nowMs);
    };
    await waitFor(
      () => subscriber.count(mid) > 20 && reported.length > 0,
      'packets reported before the NACK',
    );
    publisher.stop();
    const sent = consumer.stats.packetsSent;
    await waitFor(() => subscriber.count(mid) >= sent, 'every forwarded packet at the subscriber');
    const wanted = subscriber.packets.find((entry) => entry.mid === mid)?.packet;
    if (wanted === undefined) throw new Error('no packet');
    const before = [...reported];

    await subscriber.sendNack(mid, [wanted.header.sequenceNumber]);
    await waitFor(() => consumer.stats.retransmissions === 1, 'the retransmission');
    expect(consumer.stats.packetsSent).toBe(sent);
    expect(reported.slice(0, before.length)).toEqual(before);
    expect(reported.slice(before.length)).toEqual([((before.at(-1) ?? 0) + 1) & 0xffff]);
  });
});
