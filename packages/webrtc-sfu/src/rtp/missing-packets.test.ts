import { describe, expect, it } from 'vitest';
import { MissingPackets } from './missing-packets.js';

const options = { retryIntervalMs: 100, maxRequests: 3, maxAgeMs: 1_000, maxTracked: 50 };

describe('MissingPackets', () => {
  it('asks for a gap at once, again each retry interval, and no more once the packet came', () => {
    const missing = new MissingPackets(options);
    expect(missing.received(10, 0)).toBe(false);
    expect(missing.received(13, 5)).toBe(true);
    expect(missing.due(5)).toEqual({ ask: [11, 12], givenUp: 0 });
    expect(missing.due(50)).toEqual({ ask: [], givenUp: 0 });
    // 11 arrives (retransmitted); 12 is asked for again a retry interval after the first request.
    missing.received(11, 60);
    expect(missing.due(105)).toEqual({ ask: [12], givenUp: 0 });
    expect(missing.size).toBe(1);
    missing.received(12, 120);
    expect(missing.size).toBe(0);
    expect(missing.due(300)).toEqual({ ask: [], givenUp: 0 });
  });

  it('sees a gap across the 16-bit wrap', () => {
    const missing = new MissingPackets(options);
    missing.received(65_534, 0);
    expect(missing.received(1, 1)).toBe(true);
    expect(missing.due(1).ask).toEqual([65_535, 0]);
    // The stream goes on: later packets are in order again, and the gap stays asked for.
    expect(missing.received(2, 2)).toBe(false);
    missing.received(65_535, 3);
    expect(missing.due(150).ask).toEqual([0]);
  });

  it('gives up after maxRequests, after maxAgeMs, and a gap wider than maxTracked at once', () => {
    const missing = new MissingPackets(options);
    missing.received(100, 0);
    missing.received(102, 0);
    expect(missing.due(0).ask).toEqual([101]);
    expect(missing.due(100).ask).toEqual([101]);
    expect(missing.due(200).ask).toEqual([101]);
    expect(missing.due(300)).toEqual({ ask: [], givenUp: 1 });

    missing.received(104, 400);
    expect(missing.due(400).ask).toEqual([103]);
    expect(missing.due(1_401)).toEqual({ ask: [], givenUp: 1 });

    // A jump of 100 (a long outage): nothing tracked, all given up.
    expect(missing.received(205, 1_500)).toBe(false);
    expect(missing.due(1_500)).toEqual({ ask: [], givenUp: 100 });
    expect(missing.size).toBe(0);
  });

  it('keeps at most maxTracked missing packets, giving up the oldest', () => {
    const missing = new MissingPackets({ ...options, maxTracked: 5 });
    missing.received(0, 0);
    missing.received(4, 0);
    missing.received(8, 0);
    expect(missing.size).toBe(5);
    // Gaps 1-3 and 5-7: six missing, the oldest (1) given up.
    expect(missing.due(0)).toEqual({ ask: [2, 3, 5, 6, 7], givenUp: 1 });
  });
});
