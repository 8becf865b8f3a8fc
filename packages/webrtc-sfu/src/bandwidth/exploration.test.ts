import { describe, expect, it } from 'vitest';
import { BandwidthEstimator } from './bandwidth-estimator.js';
import { streamToExplore } from './exploration.js';
import type { AllocationStream } from './layer-allocation.js';

const camera = (
  currentLayer: number | undefined,
  overrides: Partial<AllocationStream> = {},
): AllocationStream => ({
  priority: 1,
  layerBitrates: [150_000, 500_000, 1_500_000],
  maxLayer: 2,
  currentLayer,
  mayUpgrade: true,
  ...overrides,
});

describe('streamToExplore', () => {
  it('picks a stream the estimate keeps at its layer below the one it wants', () => {
    expect(streamToExplore([camera(0)], [0], 1.15, undefined)).toBe(0);
    expect(streamToExplore([camera(1)], [1], 1.15, undefined)).toBe(0);
  });

  it('picks a stream the estimate paused, to resume it at its lowest layer', () => {
    expect(streamToExplore([camera(undefined)], [undefined], 1.15, undefined)).toBe(0);
    expect(streamToExplore([camera(0), camera(undefined)], [0, undefined], 1.15, undefined)).toBe(0);
    // Its lowest layer needs 150 x 1.15 = 172.5 kbit/s: a REMB below that could not carry it.
    expect(streamToExplore([camera(undefined)], [undefined], 1.15, 172_000)).toBe(-1);
    expect(streamToExplore([camera(undefined, { mayUpgrade: false })], [undefined], 1.15, undefined)).toBe(
      -1,
    );
  });

  it('picks none at the wanted or top layer, in a hold, or already climbing', () => {
    expect(streamToExplore([camera(2)], [2], 1.15, undefined)).toBe(-1);
    expect(streamToExplore([camera(0, { maxLayer: 0 })], [0], 1.15, undefined)).toBe(-1);
    expect(streamToExplore([camera(1, { layerBitrates: [150_000, 500_000] })], [1], 1.15, undefined)).toBe(
      -1,
    );
    expect(streamToExplore([camera(0, { mayUpgrade: false })], [0], 1.15, undefined)).toBe(-1);
    // One stream climbs already (it probes for itself): the other waits.
    expect(streamToExplore([camera(0), camera(0)], [1, 0], 1.15, undefined)).toBe(-1);
    // A paused stream resuming counts as a climb too.
    expect(streamToExplore([camera(undefined), camera(0)], [0, 0], 1.15, undefined)).toBe(-1);
  });

  it('serves the screen share first, then streams in order', () => {
    const screen = camera(0, { priority: 0 });
    expect(streamToExplore([camera(0), screen], [0, 0], 1.15, undefined)).toBe(1);
    expect(streamToExplore([camera(2), camera(0), camera(0)], [2, 0, 0], 1.15, undefined)).toBe(1);
  });

  it("skips a climb the subscriber's own REMB could not carry", () => {
    // Forwarded 150 + 150 kbit/s. The first stream's next layer needs 300 - 150 + 500 x 1.15 =
    // 725 kbit/s in all; the second's needs 300 - 150 + 200 x 1.15 = 380 kbit/s.
    const streams = [camera(0), camera(0, { layerBitrates: [150_000, 200_000, 300_000] })];
    expect(streamToExplore(streams, [0, 0], 1.15, 725_000)).toBe(0);
    expect(streamToExplore(streams, [0, 0], 1.15, 724_000)).toBe(1);
    expect(streamToExplore(streams, [0, 0], 1.15, 379_000)).toBe(-1);
  });
});

describe('BandwidthEstimator after a probe', () => {
  const options = {
    initialBitrate: 300_000,
    minBitrate: 50_000,
    maxBitrate: 2_000_000,
    increasePerSecond: 0.1,
  };

  /** Feedback of 30 packets of 1,000 bytes, all received with a steady delay. */
  function cleanFeedback(estimator: BandwidthEstimator, firstSequence: number, startMs: number): void {
    const results = [];
    for (let index = 0; index < 30; index += 1) {
      estimator.packetSent(firstSequence + index, 1_000, startMs + index * 5);
      results.push({
        sequenceNumber: firstSequence + index,
        received: true,
        receivedAtMs: startMs + index * 5 + 20,
      });
    }
    estimator.transportFeedback(results, startMs + 200);
  }

  it('raises the estimate to what a passed probe carried, never above the maximum, and never lowers it', () => {
    const estimator = new BandwidthEstimator(options);
    cleanFeedback(estimator, 0, 0);
    const before = estimator.bitrate(200) ?? 0;
    expect(before).toBeLessThan(400_000);
    estimator.probing = true;
    estimator.probed(true, 100_000, 1_200, 900_000);
    expect(estimator.probing).toBe(false);
    expect(estimator.bitrate(1_200)).toBe(900_000);
    estimator.probed(true, 100_000, 1_300, 500_000);
    expect(estimator.bitrate(1_300)).toBe(900_000);
    estimator.probed(true, 100_000, 1_400, 5_000_000);
    expect(estimator.bitrate(1_400)).toBe(2_000_000);
  });

  it('says feedback is clean only after clean feedback, not while probing, and not within a second of a cut', () => {
    const estimator = new BandwidthEstimator(options);
    expect(estimator.feedbackClean(0)).toBe(false);
    cleanFeedback(estimator, 0, 0);
    expect(estimator.feedbackClean(300)).toBe(true);
    estimator.probing = true;
    expect(estimator.feedbackClean(300)).toBe(false);
    estimator.probed(false, 200_000, 400);
    expect(estimator.feedbackClean(900)).toBe(false);
    cleanFeedback(estimator, 100, 1_500);
    expect(estimator.feedbackClean(1_700)).toBe(true);
  });

  it('says feedback is clean a second after the last one when nothing is sent (video paused), unless a cut came then', () => {
    const estimator = new BandwidthEstimator(options);
    cleanFeedback(estimator, 0, 0);
    estimator.probing = true;
    estimator.probed(false, 200_000, 300);
    expect(estimator.feedbackClean(1_000)).toBe(false);
    // No feedback since 200 ms, no cut since 300 ms.
    expect(estimator.feedbackClean(1_301)).toBe(true);
  });
});
