import { describe, expect, it } from 'vitest';
import { readVp8Descriptor, Vp8PictureRewriter } from '../rtp/vp8-picture-rewriter.js';
import { BandwidthEstimator } from './bandwidth-estimator.js';
import { allocateLayers } from './layer-allocation.js';
import { UpgradeHold } from './upgrade-hold.js';

const estimatorOptions = {
  initialBitrate: 1_000_000,
  minBitrate: 50_000,
  maxBitrate: 10_000_000,
  increasePerSecond: 0.5,
};

/** Sends `count` packets of 1,000 bytes 5 ms apart from `startMs` and reports them back, `lostEvery` lost. */
function exchange(
  estimator: BandwidthEstimator,
  firstSequence: number,
  startMs: number,
  count: number,
  lostEvery = 0,
): void {
  const results = [];
  for (let index = 0; index < count; index += 1) {
    const sequenceNumber = (firstSequence + index) % 0x1_0000;
    estimator.packetSent(sequenceNumber, 1_000, startMs + index * 5);
    const lost = lostEvery > 0 && index % lostEvery === 0;
    results.push({ sequenceNumber, received: !lost, receivedAtMs: 10_000 + startMs + index * 5 + 20 });
  }
  estimator.transportFeedback(results, startMs + count * 5 + 30);
}

describe('BandwidthEstimator', () => {
  it('has no estimate before feedback, takes REMB as a ceiling, and cuts on heavy loss', () => {
    const estimator = new BandwidthEstimator(estimatorOptions);
    expect(estimator.bitrate(0)).toBeUndefined();
    estimator.receiverEstimated(300_000);
    expect(estimator.bitrate(0)).toBe(300_000);
    exchange(estimator, 0, 0, 40);
    expect(estimator.bitrate(200)).toBe(300_000);
    estimator.receiverEstimated(20_000_000);
    expect(estimator.bitrate(200)).toBeGreaterThanOrEqual(1_000_000);
    exchange(estimator, 40, 300, 40, 2);
    const cut = estimator.transportEstimate ?? 0;
    expect(cut).toBeLessThan(1_000_000);
    expect(cut).toBeGreaterThanOrEqual(50_000);
  });

  it('cuts to 85 % of the delivered rate once, not again and again while a queue drains', () => {
    const estimator = new BandwidthEstimator(estimatorOptions);
    // 40 packets of 1,000 bytes 5 ms apart arrive 5 ms apart (1.6 Mbit/s), half of them lost.
    exchange(estimator, 0, 0, 40, 2);
    const cut = estimator.transportEstimate ?? 0;
    expect(cut).toBeGreaterThan(0);
    for (let round = 1; round <= 5; round += 1) exchange(estimator, round * 40, round * 250, 40, 2);
    expect(estimator.transportEstimate).toBe(cut);
  });

  it('starts a new feedback window after a silence, so a pause does not read as a link that carries nothing', () => {
    const estimator = new BandwidthEstimator(estimatorOptions);
    /** `count` packets of 1,000 bytes 5 ms apart, the ones at `lost` positions lost. */
    const send = (first: number, startMs: number, count: number, lost: number[] = []) => {
      const results = [];
      for (let index = 0; index < count; index += 1) {
        estimator.packetSent(first + index, 1_000, startMs + index * 5);
        const received = !lost.includes(index);
        results.push({ sequenceNumber: first + index, received, receivedAtMs: startMs + index * 5 + 20 });
      }
      estimator.transportFeedback(results, startMs + count * 5 + 30);
    };
    // 15 packets (short of a window), then the video pauses for 7 s.
    send(0, 0, 15);
    // After the pause, 3 of the first 5 packets are lost: 15 % of a window that began before the
    // pause, which would cut to 85 % of 20 kB spread over 7 s.
    send(15, 7_000, 5, [0, 1, 2]);
    send(20, 7_100, 15);
    const estimate = estimator.transportEstimate ?? 0;
    expect(estimate).toBeGreaterThan(500_000);
  });

  it('grows while feedback is clean, but not within a second of a cut', () => {
    const estimator = new BandwidthEstimator(estimatorOptions);
    exchange(estimator, 0, 0, 40, 2);
    const cut = estimator.transportEstimate ?? 0;
    exchange(estimator, 40, 300, 40);
    expect(estimator.transportEstimate).toBe(cut);
    let sequence = 80;
    for (let startMs = 1_400; startMs < 4_000; startMs += 250) {
      exchange(estimator, sequence, startMs, 40);
      sequence += 40;
    }
    expect(estimator.transportEstimate ?? 0).toBeGreaterThan(cut * 1.5);
  });

  it('after a failed probe, does not cut below its fallback while the probe’s queue drains (2 s), then cuts again', () => {
    const estimator = new BandwidthEstimator(estimatorOptions);
    exchange(estimator, 0, 0, 40);
    estimator.probing = true;
    estimator.probed(false, 900_000, 300);
    expect(estimator.transportEstimate).toBe(900_000);
    // Half lost, about 800 kbit/s delivered: a cut would be to about 700 kbit/s.
    exchange(estimator, 40, 400, 40, 2);
    exchange(estimator, 80, 1_500, 40, 2);
    expect(estimator.transportEstimate).toBe(900_000);
    exchange(estimator, 120, 2_400, 40, 2);
    expect(estimator.transportEstimate ?? Infinity).toBeLessThan(750_000);
  });
});

describe('allocateLayers', () => {
  const layers = [100_000, 300_000, 900_000];
  const camera = { priority: 1, layerBitrates: layers, maxLayer: 2, currentLayer: 2, mayUpgrade: true };

  it('gives every stream its preferred layer without an estimate', () => {
    expect(allocateLayers([camera, { ...camera, maxLayer: 0 }], undefined, 1.15)).toEqual([2, 0]);
  });

  it('gives every stream its low layer before any climbs, the screen share climbing first, and pauses what does not fit', () => {
    const screen = { ...camera, priority: 0 };
    expect(allocateLayers([camera, screen], 2_000_000, 1.15)).toEqual([2, 2]);
    expect(allocateLayers([camera, screen], 1_100_000, 1.15)).toEqual([0, 2]);
    expect(allocateLayers([camera, screen], 950_000, 1.15)).toEqual([1, 1]);
    expect(allocateLayers([camera, screen], 150_000, 1.15)).toEqual([undefined, 0]);
  });

  it('climbs above the current layer only with headroom and never during the hold', () => {
    const low = { ...camera, currentLayer: 0 };
    expect(allocateLayers([low], 950_000, 1.15)).toEqual([1]);
    expect(allocateLayers([low], 1_100_000, 1.15)).toEqual([2]);
    expect(allocateLayers([{ ...low, mayUpgrade: false }], 5_000_000, 1.15)).toEqual([0]);
    expect(
      allocateLayers([{ ...camera, currentLayer: undefined, mayUpgrade: false }], 5_000_000, 1.15),
    ).toEqual([undefined]);
  });
});

describe('UpgradeHold', () => {
  it('waits upgradeHoldMs after a step down, doubles the wait each time a climb fails at once, and starts over after a lasting climb', () => {
    const hold = new UpgradeHold(1_000);
    expect(hold.mayClimb(0)).toBe(true);
    hold.steppedDown(0);
    expect([hold.mayClimb(999), hold.mayClimb(1_000)]).toEqual([false, true]);
    // Behind a narrow link: every climb congests it and is undone within a second or two.
    let nowMs = 1_000;
    const holds: number[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      hold.climbed(nowMs);
      nowMs += 1_500;
      hold.steppedDown(nowMs);
      holds.push(hold.holdMs);
      expect(hold.mayClimb(nowMs + hold.holdMs - 1)).toBe(false);
      nowMs += hold.holdMs;
    }
    expect(holds).toEqual([2_000, 4_000, 4_000, 4_000, 4_000]);
    // A climb that lasted longer than 5 s was no mistake: the next step down waits the base hold.
    hold.climbed(nowMs);
    hold.steppedDown(nowMs + 6_000);
    expect(hold.holdMs).toBe(1_000);
  });
});

describe('Vp8PictureRewriter', () => {
  const packet = (pictureId: number, tl0: number) =>
    Buffer.from([0x90, 0xc0, 0x80 | (pictureId >> 8), pictureId & 0xff, tl0, 0x00]);

  it('passes a single run through untouched and continues picture ids across a switch', () => {
    const rewriter = new Vp8PictureRewriter();
    const original = packet(500, 7);
    expect(rewriter.rewrite(original)).toBe(original);
    rewriter.rewrite(packet(501, 8));
    rewriter.resync();
    const switched = rewriter.rewrite(packet(32_767, 200));
    expect(readVp8Descriptor(switched)).toMatchObject({ pictureId: 502, tl0PicIdx: 9 });
    expect(readVp8Descriptor(rewriter.rewrite(packet(0, 201)))).toMatchObject({ pictureId: 503 });
    expect(readVp8Descriptor(rewriter.rewrite(packet(1, 202)))).toMatchObject({
      pictureId: 504,
      tl0PicIdx: 11,
    });
  });
});
