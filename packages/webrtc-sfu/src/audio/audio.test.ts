import { describe, expect, it } from 'vitest';
import { AudioMixer, type AudioMixerOptions } from './audio-mixer.js';
import { opusCodec, rawPcmCodec } from './opus-codec.js';
import { SampleQueue } from './sample-queue.js';
import { frameLevelDbov, TalkingDetector } from './talking-detector.js';

const talking = { startDbov: -40, stopDbov: -50, windowMs: 60, holdMs: 60 };

/** Mixer settings of these tests: the exact raw PCM codec, one frame of prebuffer. */
function mixerOptions(overrides: Partial<AudioMixerOptions> = {}): AudioMixerOptions {
  return {
    codec: rawPcmCodec,
    sampleRate: 16_000,
    bitrate: 32_000,
    complexity: 4,
    jitterFrames: 5,
    prebufferFrames: 1,
    talking,
    ...overrides,
  };
}

function frame(value: number, length = 320): Uint8Array {
  return new Uint8Array(new Int16Array(length).fill(value).buffer);
}

function decode(bytes: Uint8Array): Int16Array {
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

describe('AudioMixer (raw PCM codec)', () => {
  it('gives everyone the sum of the others, encodes the listeners’ mix once, and sends nothing before anyone speaks', () => {
    const heard = new Map<string, number[]>();
    const mixer = new AudioMixer(mixerOptions(), () => {});
    for (const id of ['a', 'b', 'c', 'd']) {
      mixer.add(id, (payload) => heard.set(id, [...(heard.get(id) ?? []), decode(payload)[0] ?? 0]));
      if (id !== 'd') mixer.setMuted(id, false);
    }
    mixer.tick();
    expect(heard.size).toBe(0);
    mixer.push('a', 1, frame(1_000));
    mixer.push('b', 1, frame(200));
    mixer.push('d', 1, frame(5_000));
    mixer.tick();
    expect(Object.fromEntries(heard)).toEqual({ a: [200], b: [1_000], c: [1_200], d: [1_200] });
    expect(mixer.stats.framesEncoded).toBe(3);
  });

  it('clips the sum to 16 bits and drops late or duplicate packets', () => {
    const heard: number[] = [];
    const mixer = new AudioMixer(mixerOptions(), () => {});
    mixer.add('a', undefined);
    mixer.add('b', undefined);
    mixer.add('c', (payload) => heard.push(decode(payload)[0] ?? 0));
    mixer.setMuted('a', false);
    mixer.setMuted('b', false);
    mixer.push('a', 10, frame(30_000));
    mixer.push('a', 10, frame(30_000));
    mixer.push('a', 9, frame(30_000));
    mixer.push('b', 1, frame(30_000));
    mixer.tick();
    expect(heard).toEqual([32_767]);
    expect(mixer.stats.packetsDropped).toBe(2);
  });

  it('keeps at most jitterFrames of a speaker, dropping the oldest', () => {
    const heard: number[] = [];
    const mixer = new AudioMixer(mixerOptions({ jitterFrames: 2 }), () => {});
    mixer.add('a', undefined);
    mixer.add('b', (payload) => heard.push(decode(payload)[0] ?? 0));
    mixer.setMuted('a', false);
    for (let sequence = 1; sequence <= 4; sequence += 1) mixer.push('a', sequence, frame(sequence * 100));
    for (let tick = 0; tick < 4; tick += 1) mixer.tick();
    // The two oldest were dropped; after the queue ran dry the speaker counts as silence.
    expect(heard).toEqual([300, 400, 0, 0]);
  });

  it('sends a packet on every tick while anyone sends, a late packet costing a frame of silence, and goes quiet 10 ticks after the last packet', () => {
    const heard = new Map<string, number[]>();
    const mixer = new AudioMixer(mixerOptions(), () => {});
    for (const id of ['a', 'b', 'c']) {
      mixer.add(id, (payload) => heard.set(id, [...(heard.get(id) ?? []), decode(payload)[0] ?? 0]));
      if (id !== 'c') mixer.setMuted(id, false);
    }
    mixer.push('a', 1, frame(1_000));
    mixer.push('b', 1, frame(200));
    mixer.tick();
    // b's second packet is late: that tick hears a alone, b hears a, and a hears silence, all on time.
    mixer.push('a', 2, frame(1_000));
    mixer.tick();
    mixer.push('b', 2, frame(200));
    mixer.tick();
    expect(Object.fromEntries(heard)).toEqual({
      a: [200, 0, 200],
      b: [1_000, 1_000, 0],
      c: [1_200, 1_000, 200],
    });
    heard.clear();
    for (let tick = 0; tick < 20; tick += 1) mixer.tick();
    // Silence from both senders for 10 ticks after their last packets, then nothing.
    expect(heard.get('c')).toEqual(new Array(9).fill(0));
    heard.clear();
    mixer.push('a', 3, frame(300));
    mixer.tick();
    expect(Object.fromEntries(heard)).toEqual({ a: [0], b: [300], c: [300] });
  });

  it('mixes a sender once prebufferFrames are queued, and again after its queue ran dry', () => {
    const heard: number[] = [];
    const mixer = new AudioMixer(mixerOptions({ prebufferFrames: 2 }), () => {});
    mixer.add('a', undefined);
    mixer.add('b', (payload) => heard.push(decode(payload)[0] ?? 0));
    mixer.setMuted('a', false);
    mixer.push('a', 1, frame(100));
    mixer.tick();
    mixer.push('a', 2, frame(200));
    mixer.tick();
    mixer.tick();
    mixer.tick();
    mixer.push('a', 3, frame(300));
    mixer.tick();
    mixer.push('a', 4, frame(400));
    mixer.tick();
    mixer.tick();
    // Silence while one frame waits, both frames, silence while it waits again, then 300 and 400.
    expect(heard).toEqual([0, 100, 200, 0, 0, 300, 400]);
  });

  it('reports talking with hysteresis and its end on mute', () => {
    const changes: Array<[string, boolean]> = [];
    const mixer = new AudioMixer(mixerOptions({ jitterFrames: 50 }), (id, state) =>
      changes.push([id, state]),
    );
    mixer.add('a', undefined);
    mixer.setMuted('a', false);
    let sequence = 0;
    const push = (value: number) => {
      sequence += 1;
      mixer.push('a', sequence, frame(value));
    };
    for (let index = 0; index < 3; index += 1) push(10_000);
    expect(changes).toEqual([['a', true]]);
    for (let index = 0; index < 2; index += 1) push(200);
    expect(changes).toHaveLength(1);
    mixer.setMuted('a', true);
    expect(changes).toEqual([
      ['a', true],
      ['a', false],
    ]);
  });
});

describe('TalkingDetector', () => {
  it('needs a full window above start, and a hold below stop before it ends', () => {
    const detector = new TalkingDetector({ startDbov: -40, stopDbov: -50, windowFrames: 2, holdFrames: 2 });
    expect(detector.push(-20)).toBeUndefined();
    expect(detector.push(-20)).toBe(true);
    expect(detector.push(-45)).toBeUndefined();
    expect(detector.push(-45)).toBeUndefined();
    expect(detector.push(-90)).toBeUndefined();
    expect(detector.push(-90)).toBe(false);
    expect(detector.reset()).toBeUndefined();
  });

  it('measures levels in dBov', () => {
    expect(frameLevelDbov(new Int16Array(10).fill(32_767))).toBeCloseTo(0, 1);
    expect(frameLevelDbov(new Int16Array(10).fill(328))).toBeCloseTo(-40, 0);
    expect(frameLevelDbov(new Int16Array(10))).toBe(-127);
  });
});

describe('SampleQueue', () => {
  it('reassembles frames from packets of other durations', () => {
    const queue = new SampleQueue(1_000);
    queue.push(Int16Array.from([1, 2, 3]));
    queue.push(Int16Array.from([4, 5]));
    expect(queue.take(4)).toEqual(Int16Array.from([1, 2, 3, 4]));
    expect(queue.take(2)).toBeUndefined();
    queue.push(Int16Array.from([6]));
    expect(queue.take(2)).toEqual(Int16Array.from([5, 6]));
  });

  it('wraps around its ring and keeps the newest samples beyond capacity', () => {
    const queue = new SampleQueue(5);
    queue.push(Int16Array.from([1, 2, 3, 4]));
    expect(queue.take(3)).toEqual(Int16Array.from([1, 2, 3]));
    queue.push(Int16Array.from([5, 6, 7]));
    const frame = new Int16Array(4);
    expect(queue.takeInto(frame)).toBe(true);
    expect(frame).toEqual(Int16Array.from([4, 5, 6, 7]));
    expect(queue.takeInto(frame)).toBe(false);
    queue.push(Int16Array.from([8, 9, 10]));
    queue.push(Int16Array.from([11, 12, 13]));
    expect(queue.size).toBe(5);
    expect(queue.take(5)).toEqual(Int16Array.from([9, 10, 11, 12, 13]));
    queue.push(Int16Array.from([1, 2, 3, 4, 5, 6, 7]));
    expect(queue.take(5)).toEqual(Int16Array.from([3, 4, 5, 6, 7]));
  });
});

describe('opusCodec', () => {
  it('round-trips a 20 ms tone frame at 16 and 48 kHz', () => {
    for (const sampleRate of [16_000, 48_000]) {
      const encoder = opusCodec.createEncoder({ sampleRate, bitrate: 32_000 });
      const decoder = opusCodec.createDecoder({ sampleRate });
      const size = sampleRate / 50;
      let last: Int16Array = new Int16Array();
      for (let index = 0; index < 10; index += 1) {
        const pcm = Int16Array.from({ length: size }, (_, sample) =>
          Math.round(8_000 * Math.sin((2 * Math.PI * 440 * (index * size + sample)) / sampleRate)),
        );
        last = decoder.decode(encoder.encode(pcm));
      }
      expect(last.length).toBe(size);
      expect(frameLevelDbov(last)).toBeGreaterThan(-18);
    }
  });

  it('always uses the transform mode (CELT) with the restricted-lowdelay application', () => {
    const encoder = opusCodec.createEncoder({
      sampleRate: 16_000,
      bitrate: 32_000,
      complexity: 5,
      application: 'restricted-lowdelay',
    });
    const decoder = opusCodec.createDecoder({ sampleRate: 16_000 });
    let last: Int16Array = new Int16Array();
    for (let index = 0; index < 10; index += 1) {
      const pcm = Int16Array.from({ length: 320 }, (_, sample) =>
        Math.round(8_000 * Math.sin((2 * Math.PI * 440 * (index * 320 + sample)) / 16_000)),
      );
      const packet = encoder.encode(pcm);
      // The TOC byte's configuration (its top 5 bits): 16 to 31 are CELT-only.
      expect((packet[0] ?? 0) >> 3).toBeGreaterThanOrEqual(16);
      last = decoder.decode(packet);
    }
    expect(frameLevelDbov(last)).toBeGreaterThan(-18);
  });
});
