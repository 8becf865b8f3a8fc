import { describe, expect, it } from 'vitest';
import { RetransmissionBuffer } from './retransmission-buffer.js';
import { SequenceRewriter, sequenceDistance } from './sequence-rewriter.js';
import { isVp8KeyframeStart } from './vp8.js';

describe('isVp8KeyframeStart', () => {
  it('recognises the first packet of a keyframe, with and without the extended descriptor', () => {
    expect(isVp8KeyframeStart(Uint8Array.from([0x10, 0x00, 0, 0, 0x9d]))).toBe(true);
    expect(isVp8KeyframeStart(Uint8Array.from([0x90, 0x80, 0x81, 0x23, 0x00]))).toBe(true);
    expect(isVp8KeyframeStart(Uint8Array.from([0x90, 0xe0, 0x05, 0x01, 0x02, 0x00]))).toBe(true);
  });

  it('rejects interframes, continuation packets, later partitions and empty payloads', () => {
    expect(isVp8KeyframeStart(Uint8Array.from([0x10, 0x01]))).toBe(false);
    expect(isVp8KeyframeStart(Uint8Array.from([0x00, 0x00]))).toBe(false);
    expect(isVp8KeyframeStart(Uint8Array.from([0x11, 0x00]))).toBe(false);
    expect(isVp8KeyframeStart(new Uint8Array())).toBe(false);
    expect(isVp8KeyframeStart(Uint8Array.from([0x90]))).toBe(false);
  });
});

describe('SequenceRewriter', () => {
  it('passes the first run through unchanged', () => {
    const rewriter = new SequenceRewriter(90_000);
    expect(rewriter.rewrite(100, 5_000, 0)).toEqual({ sequenceNumber: 100, timestamp: 5_000 });
    expect(rewriter.rewrite(101, 8_000, 33)).toEqual({ sequenceNumber: 101, timestamp: 8_000 });
  });

  it('continues right after the last output when the source changes, advancing time by the pause', () => {
    const rewriter = new SequenceRewriter(90_000);
    rewriter.rewrite(65_535, 4_294_967_000, 0);
    rewriter.resync();
    expect(rewriter.rewrite(7, 10, 1_000)).toEqual({
      sequenceNumber: 0,
      timestamp: (4_294_967_000 + 90_000) % 2 ** 32,
    });
    expect(rewriter.rewrite(8, 3_010, 1_033)).toEqual({
      sequenceNumber: 1,
      timestamp: (4_294_967_000 + 93_000) % 2 ** 32,
    });
  });

  it('drops packets from before the current run and closes gaps left by skipped padding', () => {
    const rewriter = new SequenceRewriter(90_000);
    rewriter.rewrite(10, 0, 0);
    rewriter.resync();
    rewriter.rewrite(500, 0, 10);
    expect(rewriter.rewrite(499, 0, 11)).toBeUndefined();
    rewriter.skip(501);
    expect(rewriter.rewrite(502, 0, 12)?.sequenceNumber).toBe(12);
  });

  it('measures sequence distance across the wrap', () => {
    expect(sequenceDistance(65_535, 1)).toBe(2);
    expect(sequenceDistance(1, 65_535)).toBe(-2);
  });
});

describe('RetransmissionBuffer', () => {
  it('keeps the last capacity packets and forgets older ones sharing a slot', () => {
    const buffer = new RetransmissionBuffer<string>(16);
    for (let sequence = 65_530; sequence < 65_530 + 40; sequence += 1)
      buffer.store(sequence % 65_536, `p${sequence % 65_536}`);
    expect(buffer.get(33)).toBe('p33');
    expect(buffer.get(18)).toBe('p18');
    expect(buffer.get(17)).toBeUndefined();
    buffer.clear();
    expect(buffer.get(33)).toBeUndefined();
  });
});
