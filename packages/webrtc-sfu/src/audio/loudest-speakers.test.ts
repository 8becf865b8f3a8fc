import { describe, expect, it } from 'vitest';
import { AudioMixer } from './audio-mixer.js';
import { chooseMixedSpeakers, type MixCandidate, replaceMarginDb } from './loudest-speakers.js';
import { rawPcmCodec } from './opus-codec.js';

function candidates(levels: Record<string, number | 'silent' | 'gone'>): Map<string, MixCandidate> {
  return new Map(
    Object.entries(levels).map(([id, level]) => [
      id,
      {
        active: level !== 'gone',
        mixed: false,
        talking: typeof level === 'number',
        levelDbov: typeof level === 'number' ? level : -127,
      },
    ]),
  );
}

function mixedOf(participants: Map<string, MixCandidate>): string[] {
  return [...participants].filter(([, candidate]) => candidate.mixed).map(([id]) => id);
}

describe('chooseMixedSpeakers', () => {
  it('mixes every active participant up to the limit, and none that is gone', () => {
    const participants = candidates({ a: -30, b: 'silent', c: 'gone' });
    chooseMixedSpeakers(participants, 2);
    expect(mixedOf(participants)).toEqual(['a', 'b']);
  });

  it('fills free places with talkers before the silent, loudest first', () => {
    const participants = candidates({ quiet: 'silent', soft: -40, loud: -20, middle: -30 });
    chooseMixedSpeakers(participants, 2);
    // Two places filled (loud, middle); then soft is not 6 dB louder than middle.
    expect(mixedOf(participants)).toEqual(['loud', 'middle']);
  });

  it('keeps a mixed talker against a challenger less than the margin louder, and gives way beyond it, one place per tick', () => {
    const participants = candidates({ a: -30, b: -30, c: -30 });
    chooseMixedSpeakers(participants, 2);
    expect(mixedOf(participants)).toEqual(['a', 'b']);
    const c = participants.get('c') as MixCandidate;
    c.levelDbov = -30 + replaceMarginDb - 1;
    chooseMixedSpeakers(participants, 2);
    expect(mixedOf(participants)).toEqual(['a', 'b']);
    c.levelDbov = -30 + replaceMarginDb + 1;
    const d = { active: true, mixed: false, talking: true, levelDbov: -10 };
    participants.set('d', d);
    chooseMixedSpeakers(participants, 2);
    expect(mixedOf(participants)).toHaveLength(2);
    expect(mixedOf(participants)).toContain('d');
    chooseMixedSpeakers(participants, 2);
    expect(mixedOf(participants).sort()).toEqual(['c', 'd']);
  });

  it('gives the place of one who stopped talking, or went, to a talker left out', () => {
    const participants = candidates({ a: -30, b: -30, c: -50 });
    chooseMixedSpeakers(participants, 2);
    expect(mixedOf(participants)).toEqual(['a', 'b']);
    const a = participants.get('a') as MixCandidate;
    a.talking = false;
    chooseMixedSpeakers(participants, 2);
    expect(mixedOf(participants)).toEqual(['b', 'c']);
    a.talking = true;
    (participants.get('b') as MixCandidate).active = false;
    chooseMixedSpeakers(participants, 2);
    expect(mixedOf(participants)).toEqual(['a', 'c']);
  });
});

function frame(value: number): Uint8Array {
  return new Uint8Array(new Int16Array(320).fill(value).buffer);
}

/** A mixer of exact raw PCM, one frame of prebuffer, talking over 3 frames above -40 dBov. */
function exactMixer(
  mixedSpeakers: number,
  onTalking: (participantId: string, talking: boolean) => void = () => {},
): AudioMixer {
  return new AudioMixer(
    {
      codec: rawPcmCodec,
      sampleRate: 16_000,
      bitrate: 32_000,
      complexity: 9,
      jitterFrames: 5,
      prebufferFrames: 1,
      talking: { startDbov: -40, stopDbov: -50, windowMs: 60, holdMs: 60 },
      mixedSpeakers,
    },
    onTalking,
  );
}

describe('AudioMixer with mixedSpeakers', () => {
  it('mixes the loudest talkers once they are known, and the rest share one encoded mix', () => {
    const mixer = exactMixer(2);
    // Quietest first: the first two places go to e and d before anyone's level is known.
    const loudness: Record<string, number> = { e: 500, d: 1_000, c: 2_000, b: 4_000, a: 8_000 };
    const heard = new Map<string, number>();
    for (const id of Object.keys(loudness)) {
      mixer.add(id, (payload) => heard.set(id, new Int16Array(payload.slice().buffer)[0] ?? 0));
      mixer.setMuted(id, false);
    }
    const tick = (sequence: number) => {
      heard.clear();
      for (const [id, value] of Object.entries(loudness)) mixer.push(id, sequence, frame(value));
      mixer.tick();
      return Object.fromEntries(heard);
    };
    expect(tick(1)).toEqual({ e: 1_000, d: 500, c: 1_500, b: 1_500, a: 1_500 });
    expect(mixer.stats.framesEncoded).toBe(3);
    for (let sequence = 2; sequence <= 6; sequence += 1) tick(sequence);
    // a (-12 dBov) and b (-18) took the places; c (-24) is not 6 dB louder than b.
    const encodedBefore = mixer.stats.framesEncoded;
    expect(tick(7)).toEqual({ a: 4_000, b: 8_000, c: 12_000, d: 12_000, e: 12_000 });
    expect(mixer.stats.framesEncoded - encodedBefore).toBe(3);
  });

  it('decodes a sender left out of a full mix only when its packets state no level, and hears its stated talking', () => {
    const talking: Array<[string, boolean]> = [];
    const mixer = exactMixer(1, (id, state) => talking.push([id, state]));
    for (const id of ['a', 'b', 'c']) {
      mixer.add(id, () => {});
      mixer.setMuted(id, false);
    }
    mixer.push('a', 1, frame(8_000), -12);
    mixer.tick();
    // One sender, one place: b's first packet is decoded though it states a level.
    mixer.push('a', 2, frame(8_000), -12);
    mixer.push('b', 1, frame(1_000), -30);
    expect(mixer.stats.framesSkipped).toBe(0);
    mixer.tick();
    // Two senders now, a holds the place: b's packets with a level are skipped, c's without one are not.
    for (let sequence = 3; sequence <= 6; sequence += 1) {
      mixer.push('a', sequence, frame(8_000), -12);
      mixer.push('b', sequence - 1, frame(1_000), -30);
      mixer.push('c', sequence - 2, frame(1_000));
      mixer.tick();
    }
    expect(mixer.stats.framesSkipped).toBe(4);
    // Decoded: all six of a, the first of b, all four of c.
    expect(mixer.stats.framesDecoded).toBe(6 + 1 + 4);
    expect(talking).toContainEqual(['b', true]);
    expect(talking).toContainEqual(['c', true]);
  });
});
