import { describe, expect, it } from 'vitest';
import { RTP_EXTENSION_URI, RtpHeader } from 'werift';
import { RetransmissionBuffer } from './retransmission-buffer.js';
import { planExtensions, writeRtpHeader } from './rtp-header-writer.js';
import { SequenceRewriter, sequenceDistance } from './sequence-rewriter.js';
import { isVp8KeyframeStart, readVp8KeyframeSize } from './vp8.js';

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
    const buffer = new RetransmissionBuffer(16);
    for (let sequence = 65_530; sequence < 65_530 + 40; sequence += 1) {
      const sequenceNumber = sequence % 65_536;
      const fields = { sequenceNumber, timestamp: 0xffff_ff00 + sequenceNumber, marker: sequence % 3 === 0 };
      buffer.store(fields, Buffer.from(`p${sequenceNumber}`), 0);
    }
    expect(buffer.get(33)).toEqual({
      sequenceNumber: 33,
      timestamp: (0xffff_ff00 + 33) >>> 0,
      marker: (65_536 + 33) % 3 === 0,
      payload: Buffer.from('p33'),
    });
    expect(buffer.get(18)?.payload.toString()).toBe('p18');
    expect(buffer.get(17)).toBeUndefined();
    buffer.clear();
    expect(buffer.get(33)).toBeUndefined();
  });

  it('gives a packet for resending only a round trip after it was last sent, first or again', () => {
    const buffer = new RetransmissionBuffer(16);
    buffer.store({ sequenceNumber: 7, timestamp: 90, marker: true }, Buffer.from('p7'), 1_000);
    // A NACK 20 ms after the sending, with a 30 ms round trip: it crossed the packet.
    expect(buffer.takeForResend(7, 1_020, 30)).toBeUndefined();
    expect(buffer.takeForResend(7, 1_030, 30)?.payload.toString()).toBe('p7');
    // Resent at 1,030: the next NACK is answered a round trip later, not before.
    expect(buffer.takeForResend(7, 1_050, 30)).toBeUndefined();
    expect(buffer.takeForResend(7, 1_060, 30)?.sequenceNumber).toBe(7);
    expect(buffer.takeForResend(8, 5_000, 30)).toBeUndefined();
  });
});

describe('writeRtpHeader', () => {
  const negotiated = [
    { uri: RTP_EXTENSION_URI.absSendTime, id: 3 },
    { uri: RTP_EXTENSION_URI.transportWideCC, id: 5 },
    { uri: RTP_EXTENSION_URI.sdesMid, id: 1 },
    { uri: RTP_EXTENSION_URI.audioLevelIndication, id: 2 },
  ];

  it('writes what werift reads back: fields, mid, transport-wide number and abs-send-time in id order', () => {
    const layout = planExtensions(negotiated, '7');
    if (layout === undefined) throw new Error('no layout');
    const fields = { sequenceNumber: 0xfffe, timestamp: 0xffff_fff0, marker: true };
    const bytes = writeRtpHeader(fields, 96, 0xdead_beef, layout, 513, 2_000);
    const header = RtpHeader.deSerialize(Buffer.concat([bytes, Buffer.from([1, 2, 3])]));
    expect(header).toMatchObject({ ...fields, payloadType: 96, ssrc: 0xdead_beef, padding: false });
    expect(header.payloadOffset).toBe(bytes.length);
    expect(header.extensions.map((extension) => extension.id)).toEqual([1, 3, 5]);
    expect(header.extensions[0]?.payload.toString()).toBe('7');
    expect(header.extensions[1]?.payload.readUIntBE(0, 3)).toBe(2 * 262_144);
    expect(header.extensions[2]?.payload.readUInt16BE(0)).toBe(513);
  });

  it('writes a plain 12-byte header when nothing it writes was negotiated', () => {
    const layout = planExtensions([{ uri: RTP_EXTENSION_URI.sdesMid, id: 1 }], undefined);
    if (layout === undefined) throw new Error('no layout');
    const bytes = writeRtpHeader(
      { sequenceNumber: 1, timestamp: 2, marker: false },
      111,
      3,
      layout,
      undefined,
      0,
    );
    expect(bytes.length).toBe(12);
    expect(RtpHeader.deSerialize(bytes)).toMatchObject({
      extension: false,
      sequenceNumber: 1,
      timestamp: 2,
      ssrc: 3,
    });
  });

  it('sets the P bit for padding, which werift reads back with the count from the last byte', () => {
    const layout = planExtensions([{ uri: RTP_EXTENSION_URI.transportWideCC, id: 3 }], undefined);
    if (layout === undefined) throw new Error('no layout');
    const fields = { sequenceNumber: 7, timestamp: 9, marker: false };
    const bytes = writeRtpHeader(fields, 97, 0x0102_0304, layout, 42, 0, true);
    const padding = Buffer.from([0, 0, 0, 4]);
    const header = RtpHeader.deSerialize(Buffer.concat([bytes, padding]));
    expect(header).toMatchObject({ padding: true, paddingSize: 4, payloadType: 97 });
    expect(header.payloadOffset).toBe(bytes.length);
    expect(header.extensions[0]?.payload.readUInt16BE(0)).toBe(42);
    expect(RtpHeader.deSerialize(writeRtpHeader(fields, 97, 1, layout, 42, 0)).padding).toBe(false);
  });

  it('refuses what one-byte headers cannot carry, so the sender falls back to werift', () => {
    expect(planExtensions([{ uri: RTP_EXTENSION_URI.transportWideCC, id: 15 }], undefined)).toBeUndefined();
    expect(planExtensions([{ uri: RTP_EXTENSION_URI.sdesMid, id: 1 }], 'm'.repeat(17))).toBeUndefined();
  });
});

describe('readVp8KeyframeSize', () => {
  it('reads the 14-bit width and height after the start code, behind an extended descriptor too', () => {
    const header = [0x00, 0x00, 0x00, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0x68, 0x01];
    expect(readVp8KeyframeSize(Uint8Array.from([0x10, ...header]))).toEqual({ width: 640, height: 360 });
    expect(readVp8KeyframeSize(Uint8Array.from([0x90, 0xc0, 0x81, 0x23, 0x07, ...header]))).toEqual({
      width: 640,
      height: 360,
    });
    // Scaling bits (the top two) are not part of the size.
    expect(
      readVp8KeyframeSize(Uint8Array.from([0x10, 0, 0, 0, 0x9d, 0x01, 0x2a, 0x00, 0xc5, 0xf0, 0x40])),
    ).toEqual({
      width: 0x500,
      height: 0xf0,
    });
  });

  it('gives nothing for a delta frame, a later packet, a missing start code or a short payload', () => {
    expect(
      readVp8KeyframeSize(Uint8Array.from([0x10, 0x01, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0x68, 0x01])),
    ).toBeUndefined();
    expect(
      readVp8KeyframeSize(Uint8Array.from([0x00, 0x00, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0x68, 0x01])),
    ).toBeUndefined();
    expect(
      readVp8KeyframeSize(Uint8Array.from([0x10, 0x00, 0, 0, 0x9d, 0x01, 0x2b, 0x80, 0x02, 0x68, 0x01])),
    ).toBeUndefined();
    expect(readVp8KeyframeSize(Uint8Array.from([0x10, 0x00, 0, 0, 0x9d, 0x01, 0x2a, 0x80]))).toBeUndefined();
  });
});
