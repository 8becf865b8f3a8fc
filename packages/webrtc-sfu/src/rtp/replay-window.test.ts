import { describe, expect, it } from 'vitest';
import { REPLAY_WINDOW_PACKETS, ReplayWindow } from './replay-window.js';

/** Checks `index`, then accepts it when it was new; answers what the check said. */
function receive(window: ReplayWindow, index: number): boolean {
  const fresh = window.check(index);
  if (fresh) window.accept(index);
  return fresh;
}

/** The SRTP packet index of a sequence number under a rollover counter (RFC 3711 section 3.3.1). */
const srtpIndex = (rolloverCounter: number, sequenceNumber: number) =>
  rolloverCounter * 0x1_0000 + sequenceNumber;

describe('ReplayWindow', () => {
  it('takes any first index, and then each index in order once', () => {
    const window = new ReplayWindow();
    expect(window.check(0)).toBe(true);
    expect(window.check(5_000)).toBe(true);
    for (let index = 5_000; index < 5_300; index++) {
      expect(receive(window, index)).toBe(true);
      expect(window.check(index)).toBe(false);
    }
  });

  it('takes packets reordered within the window once each', () => {
    const window = new ReplayWindow();
    const order = [1_000, 1_003, 1_001, 1_002, 1_010, 1_004, 1_009, 1_005, 1_008, 1_006, 1_007];
    for (const index of order) expect(receive(window, index)).toBe(true);
    for (const index of order) expect(window.check(index)).toBe(false);
    expect(window.check(999)).toBe(true);
    expect(window.check(1_011)).toBe(true);
  });

  it('refuses a duplicate of the highest index and of one behind it', () => {
    const window = new ReplayWindow();
    window.accept(300);
    window.accept(250);
    expect(window.check(300)).toBe(false);
    expect(window.check(250)).toBe(false);
    expect(window.check(251)).toBe(true);
  });

  it(`refuses what is ${REPLAY_WINDOW_PACKETS} or more behind the highest, even never seen`, () => {
    const window = new ReplayWindow();
    const highest = 3 * REPLAY_WINDOW_PACKETS;
    window.accept(highest);
    expect(window.check(highest - (REPLAY_WINDOW_PACKETS - 1))).toBe(true);
    expect(window.check(highest - REPLAY_WINDOW_PACKETS)).toBe(false);
    expect(window.check(0)).toBe(false);
    // Accepting a too old index (the caller checks first) changes nothing.
    window.accept(highest - REPLAY_WINDOW_PACKETS);
    expect(window.check(highest - (REPLAY_WINDOW_PACKETS - 1))).toBe(true);
  });

  it('forgets the old window after a jump ahead larger than it', () => {
    const window = new ReplayWindow();
    for (let index = 0; index < 10; index++) window.accept(index);
    const jump = REPLAY_WINDOW_PACKETS + 300;
    window.accept(jump);
    expect(window.check(jump)).toBe(false);
    expect(window.check(9)).toBe(false);
    for (let index = jump - REPLAY_WINDOW_PACKETS + 1; index < jump; index++) {
      expect(window.check(index)).toBe(true);
    }
    expect(window.check(jump - REPLAY_WINDOW_PACKETS)).toBe(false);
  });

  it('keeps what it saw across jumps of one word, several words and parts of words', () => {
    const window = new ReplayWindow();
    window.accept(100);
    window.accept(132);
    window.accept(140);
    window.accept(205);
    for (const seen of [100, 132, 140, 205]) expect(window.check(seen)).toBe(false);
    for (const unseen of [101, 131, 133, 139, 141, 204]) expect(window.check(unseen)).toBe(true);
    window.accept(100 + REPLAY_WINDOW_PACKETS);
    // 100 is out of the window now: too old either way.
    expect(window.check(100)).toBe(false);
    expect(window.check(101)).toBe(true);
    expect(window.check(132)).toBe(false);
  });

  it('carries on across the 16-bit sequence number wrap through the rollover counter', () => {
    const window = new ReplayWindow();
    for (const sequenceNumber of [65_533, 65_534, 65_535]) {
      expect(receive(window, srtpIndex(0, sequenceNumber))).toBe(true);
    }
    for (const sequenceNumber of [0, 1, 2]) expect(receive(window, srtpIndex(1, sequenceNumber))).toBe(true);
    expect(window.check(srtpIndex(0, 65_535))).toBe(false);
    expect(window.check(srtpIndex(1, 0))).toBe(false);
    // The same sequence numbers one rollover later are new packets.
    expect(window.check(srtpIndex(2, 0))).toBe(true);
    expect(window.check(srtpIndex(1, 65_535))).toBe(true);
  });

  it('is exact at the top of the 48-bit SRTP index', () => {
    const window = new ReplayWindow();
    const top = srtpIndex(0xffff_ffff, 0xffff);
    window.accept(top - 2);
    expect(window.check(top - 2)).toBe(false);
    expect(receive(window, top)).toBe(true);
    expect(window.check(top - 1)).toBe(true);
    expect(window.check(top)).toBe(false);
    expect(window.check(top - 2)).toBe(false);
  });

  it('answers as a list of every accepted index would, over a long reordered, duplicated stream', () => {
    // A deterministic generator (mulberry32), so a failure replays.
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let value = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
      return ((value ^ (value >>> 14)) >>> 0) / 2 ** 32;
    };
    const window = new ReplayWindow();
    const accepted = new Set<number>();
    let highest = -1;
    let next = 70_000;
    for (let step = 0; step < 20_000; step++) {
      const roll = random();
      let index: number;
      if (roll < 0.6) index = next++;
      else if (roll < 0.9) index = next - 1 - Math.floor(random() * (REPLAY_WINDOW_PACKETS + 40));
      else if (roll < 0.98) index = next + Math.floor(random() * 70);
      else index = next + Math.floor(random() * 1_000);
      next = Math.max(next, index + 1);
      const expected = !accepted.has(index) && index > highest - REPLAY_WINDOW_PACKETS;
      expect(window.check(index), `index ${index} after ${highest}`).toBe(expected);
      if (expected) {
        window.accept(index);
        accepted.add(index);
        highest = Math.max(highest, index);
      }
    }
  });
});
