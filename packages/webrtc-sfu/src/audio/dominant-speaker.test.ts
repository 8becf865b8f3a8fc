import { describe, expect, it } from 'vitest';
import { AudioMixer } from './audio-mixer.js';
import { DominantSpeakerDetector, type SpeakerLevel } from './dominant-speaker.js';
import { rawPcmCodec } from './opus-codec.js';

const talking = (participantId: string, levelDbov: number): SpeakerLevel => ({
  participantId,
  talking: true,
  levelDbov,
});

/** Pushes the same levels `frames` times; returns every change reported. */
function run(detector: DominantSpeakerDetector, levels: SpeakerLevel[], frames: number): string[] {
  const changes: string[] = [];
  for (let frame = 0; frame < frames; frame += 1) {
    const changed = detector.push(levels);
    if (changed !== undefined) changes.push(changed);
  }
  return changes;
}

describe('DominantSpeakerDetector', () => {
  it('names the first speaker only after holdFrames of talking, and keeps it through silence', () => {
    const detector = new DominantSpeakerDetector({ holdFrames: 5, marginDb: 6 });
    expect(run(detector, [talking('a', -30)], 4)).toEqual([]);
    expect(detector.current).toBeUndefined();
    expect(run(detector, [talking('a', -30)], 1)).toEqual(['a']);
    expect(run(detector, [], 50)).toEqual([]);
    expect(detector.current).toBe('a');
  });

  it('switches to a louder challenger only by the margin, and to anyone once the dominant speaker stops', () => {
    const detector = new DominantSpeakerDetector({ holdFrames: 3, marginDb: 6 });
    run(detector, [talking('a', -30)], 3);
    // b is louder, but by less than the margin while a still talks: a stays.
    expect(run(detector, [talking('a', -30), talking('b', -26)], 20)).toEqual([]);
    // By the margin, b takes over after holdFrames.
    expect(run(detector, [talking('a', -30), talking('b', -20)], 2)).toEqual([]);
    expect(run(detector, [talking('a', -30), talking('b', -20)], 1)).toEqual(['b']);
    // a alone talks again (b is silent): no margin needed, still the hold.
    expect(
      run(detector, [talking('a', -45), { participantId: 'b', talking: false, levelDbov: -90 }], 3),
    ).toEqual(['a']);
  });

  it('restarts the hold when the lead changes hands or is interrupted', () => {
    const detector = new DominantSpeakerDetector({ holdFrames: 4, marginDb: 0 });
    run(detector, [talking('a', -30)], 4);
    expect(run(detector, [talking('a', -40), talking('b', -20)], 3)).toEqual([]);
    expect(run(detector, [talking('a', -40), talking('c', -10)], 3)).toEqual([]);
    expect(run(detector, [talking('a', -20)], 1)).toEqual([]);
    expect(run(detector, [talking('a', -40), talking('c', -10)], 3)).toEqual([]);
    expect(run(detector, [talking('a', -40), talking('c', -10)], 1)).toEqual(['c']);
  });

  it('forgets a dominant speaker who left', () => {
    const detector = new DominantSpeakerDetector({ holdFrames: 2, marginDb: 6 });
    run(detector, [talking('a', -30)], 2);
    detector.forget('a');
    expect(detector.current).toBeUndefined();
    expect(run(detector, [talking('b', -50)], 2)).toEqual(['b']);
  });
});

describe('AudioMixer dominant speaker', () => {
  const frame = (value: number) => new Uint8Array(new Int16Array(320).fill(value).buffer);

  it('reports the participant whose decoded audio stays loudest, with the configured hold', () => {
    const changes: string[] = [];
    const mixer = new AudioMixer(
      {
        codec: rawPcmCodec,
        sampleRate: 16_000,
        bitrate: 32_000,
        complexity: 4,
        jitterFrames: 5,
        prebufferFrames: 1,
        talking: { startDbov: -40, stopDbov: -50, windowMs: 60, holdMs: 60 },
        dominantSpeaker: { holdMs: 200, marginDb: 6 },
      },
      () => {},
      (participantId) => changes.push(participantId),
    );
    for (const id of ['quiet', 'loud', 'listener']) {
      mixer.add(id, () => {});
      if (id !== 'listener') mixer.setMuted(id, false);
    }
    let sequence = 1;
    const tick = (levels: Record<string, number>) => {
      for (const [id, value] of Object.entries(levels)) mixer.push(id, sequence, frame(value));
      sequence += 1;
      mixer.tick();
    };
    // 'quiet' talks alone for 0.5 s: dominant after its talking window (3 frames) and the 10-frame hold.
    for (let index = 0; index < 25; index += 1) tick({ quiet: 1_000 });
    expect(changes).toEqual(['quiet']);
    // 'loud' (about 20 dB louder) joins: it takes over once it led for 200 ms.
    for (let index = 0; index < 8; index += 1) tick({ quiet: 1_000, loud: 10_000 });
    expect(changes).toEqual(['quiet']);
    for (let index = 0; index < 10; index += 1) tick({ quiet: 1_000, loud: 10_000 });
    expect(changes).toEqual(['quiet', 'loud']);
    expect(mixer.dominantSpeaker).toBe('loud');
    mixer.remove('loud');
    expect(mixer.dominantSpeaker).toBeUndefined();
  });
});
