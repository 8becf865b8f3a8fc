import { describe, expect, it } from 'vitest';
import {
  type RTCDtlsTransport,
  type RtcpPacket,
  RtcpPacketConverter,
  RtcpTransportLayerFeedback,
  type TransportWideCC,
} from 'werift';
import { BandwidthProbe } from './probe.js';
import { type FeedbackResult, transportFeedbackResults } from './transport-feedback.js';
import { TransportFeedbackWriter } from './transport-feedback-writer.js';
import { UpgradeHold } from './upgrade-hold.js';

const verdictOptions = { maxLoss: 0.02, maxDelayGrowthMs: 30 };

/**
 * A 500 ms probe of 50 packets, one every 10 ms from t=0, reported with `delayOf(index)` ms of
 * one-way delay, or lost where `lost(index)`.
 */
function probeWith(
  delayOf: (index: number) => number,
  lost: (index: number) => boolean = () => false,
): { probe: BandwidthProbe; results: FeedbackResult[] } {
  const probe = new BandwidthProbe(600_000, 0, 500, 1_000, verdictOptions);
  const results: FeedbackResult[] = [];
  for (let index = 0; index < 50; index += 1) {
    probe.packetSent(index, 1_000, index * 10);
    results.push({
      sequenceNumber: index,
      received: !lost(index),
      receivedAtMs: index * 10 + delayOf(index),
    });
  }
  return { probe, results };
}

describe('BandwidthProbe', () => {
  it('passes once every packet is reported without loss or delay growth', () => {
    const { probe, results } = probeWith((index) => 5 + (index % 3));
    expect(probe.verdict(500)).toBe('pending');
    probe.feedback(results.slice(0, 25));
    expect(probe.verdict(500)).toBe('pending');
    probe.feedback(results.slice(25));
    expect(probe.verdict(520)).toBe('passed');
    expect(probe.sentBitrate).toBe(800_000);
  });

  it('fails on a delay growing through the probe (a queue at the bottleneck), before its end', () => {
    const { probe, results } = probeWith((index) => 5 + index * 4);
    probe.feedback(results.slice(0, 30));
    expect(probe.verdict(320)).toBe('failed');
    expect(probe.sending(330)).toBe(false);
  });

  it('fails on loss above maxLoss', () => {
    const { probe, results } = probeWith(
      () => 5,
      (index) => index % 10 === 0,
    );
    probe.feedback(results);
    expect(probe.verdict(520)).toBe('failed');
  });

  it('counts packets never reported as lost once the feedback wait is over', () => {
    const { probe, results } = probeWith(() => 5);
    probe.feedback(results.slice(0, 40));
    expect(probe.verdict(900)).toBe('pending');
    expect(probe.verdict(1_500)).toBe('failed');
  });

  it('ignores packets sent after its end', () => {
    const { probe } = probeWith(() => 5);
    probe.packetSent(99, 1_000, 600);
    expect(probe.packets).toBe(50);
  });
});

describe('UpgradeHold after a failed probe', () => {
  it('doubles the hold on each failed probe, up to 4 times the base, and starts it at the failure', () => {
    const hold = new UpgradeHold(1_000);
    hold.probeFailed(0);
    expect(hold.holdMs).toBe(2_000);
    expect(hold.mayClimb(1_999)).toBe(false);
    expect(hold.mayClimb(2_000)).toBe(true);
    for (const atMs of [2_000, 6_000, 14_000, 30_000]) hold.probeFailed(atMs);
    expect(hold.holdMs).toBe(4_000);
  });
});

describe('TransportFeedbackWriter reports of a multiple of 4 bytes', () => {
  it('carries no padding bit, so a receiver parses every packet of it', async () => {
    const sent: Buffer[] = [];
    const transport = {
      state: 'connected',
      sendRtcp: async (packets: RtcpPacket[]) => {
        sent.push(Buffer.concat(packets.map((packet) => packet.serialize())));
      },
    } as unknown as RTCDtlsTransport;
    // 2 small deltas, 1 chunk: 16 + 2 + 2 bytes after the header, already aligned.
    const writer = new TransportFeedbackWriter(() => transport, 1);
    writer.received(10, 5, 1_000_000);
    writer.received(11, 5, 1_010_000);
    writer.flush();
    writer.stop();
    await Promise.resolve();
    const [parsed] = RtcpPacketConverter.deSerialize(sent[0] ?? Buffer.alloc(0));
    expect(parsed).toBeInstanceOf(RtcpTransportLayerFeedback);
    const feedback = (parsed as RtcpTransportLayerFeedback).feedback as TransportWideCC;
    expect(
      transportFeedbackResults(feedback).map((result) => [result.sequenceNumber, result.received]),
    ).toEqual([
      [10, true],
      [11, true],
    ]);
  });
});
