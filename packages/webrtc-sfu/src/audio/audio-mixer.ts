import { sequenceDistance } from '../rtp/sequence-rewriter.js';
import { DominantSpeakerDetector, type SpeakerLevel } from './dominant-speaker.js';
import { chooseMixedSpeakers, type MixCandidate } from './loudest-speakers.js';
import type { AudioCodec, AudioDecoder, AudioEncoder, OpusApplication } from './opus-codec.js';
import { SampleQueue } from './sample-queue.js';
import { frameLevelDbov, silenceDbov, TalkingDetector } from './talking-detector.js';

/** Where a participant's mixed frames go; `frameIndex` counts mixer ticks, for RTP timestamps. */
export type MixOutput = (payload: Uint8Array, frameIndex: number) => void;

/** Settings of an {@link AudioMixer}. */
export interface AudioMixerOptions {
  codec: AudioCodec;
  sampleRate: number;
  bitrate: number;
  /** Opus encoder complexity, 0 (cheapest) to 10. */
  complexity: number;
  /** Opus encoder mode (see {@link OpusApplication}); `voip` when absent. */
  application?: OpusApplication;
  jitterFrames: number;
  /** Frames a sender's queue must hold before it is mixed, at its start and after running dry. */
  prebufferFrames: number;
  talking: { startDbov: number; stopDbov: number; windowMs: number; holdMs: number };
  /** Dominant speaker hysteresis; without it, no dominant speaker is computed. */
  dominantSpeaker?: { holdMs: number; marginDb: number };
  /**
   * Most participants whose frames go into one tick's mix, the loudest (see
   * {@link chooseMixedSpeakers}); absent, everyone who sends is mixed.
   */
  mixedSpeakers?: number;
}

/** Counters of an {@link AudioMixer}, for tests and benchmarks. */
export interface AudioMixerStats {
  ticks: number;
  framesDecoded: number;
  framesEncoded: number;
  /** Packets not decoded: their sender was left out of a full mix and the packet stated its level. */
  framesSkipped: number;
  packetsDropped: number;
}

interface MixParticipant extends MixCandidate {
  muted: boolean;
  output: MixOutput | undefined;
  decoder: AudioDecoder | undefined;
  encoder: AudioEncoder | undefined;
  queue: SampleQueue;
  lastSequence: number | undefined;
  /** The tick at which its last packet arrived, or undefined before its first (or after a mute). */
  lastPacketTick: number | undefined;
  /** Waiting for `prebufferFrames` before being mixed again. */
  prebuffering: boolean;
  detector: TalkingDetector;
  /** Its frame in the current tick (`frameBuffer` or the mixer's silence), else undefined. */
  frame: Int16Array | undefined;
  /** Where its queued samples are taken for a tick, allocated once. */
  readonly frameBuffer: Int16Array;
}

/**
 * How many ticks a sender stays in the mix after its last packet: a late packet costs a frame of
 * silence, not a missing packet for every listener. Longer gaps (a sender with discontinuous
 * transmission, or gone) end its part, and with the last sender the mixer goes quiet.
 */
const activeTicks = 10;

/** Duration of one mixed frame. */
export const frameMs = 20;

/**
 * The audio bridge of one router. It decodes the Opus packets of every unmuted participant, and
 * on each 20 ms tick gives every participant with an output the sum of everyone else's frame,
 * Opus-encoded. When more than `mixedSpeakers` send, only that many of them, the loudest, are
 * summed (see {@link chooseMixedSpeakers}). Listeners who contribute nothing to a tick's sum all
 * hear the same sum, encoded once.
 * While anyone sends, every participant gets a packet on every tick. A sender is mixed once its queue
 * holds `prebufferFrames` (timer phase and network jitter then cost no gaps); when its queue runs
 * dry it counts as silence and waits for that many frames again. Nothing is sent when nobody has
 * sent for {@link activeTicks}. Talking is detected on the decoded frames, and on each tick
 * the dominant speaker is picked from the talking participants' levels (see
 * {@link DominantSpeakerDetector}).
 */
export class AudioMixer {
  readonly stats: AudioMixerStats = {
    ticks: 0,
    framesDecoded: 0,
    framesEncoded: 0,
    framesSkipped: 0,
    packetsDropped: 0,
  };
  readonly #options: AudioMixerOptions;
  readonly #onTalking: (participantId: string, talking: boolean) => void;
  readonly #participants = new Map<string, MixParticipant>();
  readonly #frameSize: number;
  readonly #dominant: DominantSpeakerDetector | undefined;
  readonly #onDominantSpeaker: ((participantId: string) => void) | undefined;
  #sharedEncoder: AudioEncoder | undefined;
  #frameIndex = 0;
  /** Participants with a frame in the last tick. */
  #activeLastTick = 0;
  readonly #silence: Int16Array;
  readonly #prebufferSamples: number;
  /** Scratch of each tick, allocated once: the sum of every frame, and one listener's mix. */
  readonly #total: Int32Array;
  readonly #mix: Int16Array;

  constructor(
    options: AudioMixerOptions,
    onTalking: (participantId: string, talking: boolean) => void,
    onDominantSpeaker?: (participantId: string) => void,
  ) {
    this.#options = options;
    this.#onTalking = onTalking;
    this.#onDominantSpeaker = onDominantSpeaker;
    this.#frameSize = (options.sampleRate * frameMs) / 1000;
    this.#silence = new Int16Array(this.#frameSize);
    this.#total = new Int32Array(this.#frameSize);
    this.#mix = new Int16Array(this.#frameSize);
    this.#prebufferSamples = Math.min(options.prebufferFrames, options.jitterFrames) * this.#frameSize;
    const dominant = options.dominantSpeaker;
    this.#dominant =
      dominant === undefined || onDominantSpeaker === undefined
        ? undefined
        : new DominantSpeakerDetector({
            holdFrames: Math.round(dominant.holdMs / frameMs),
            marginDb: dominant.marginDb,
          });
  }

  /** The dominant speaker now, if anyone talked long enough (see {@link DominantSpeakerDetector}). */
  get dominantSpeaker(): string | undefined {
    return this.#dominant?.current;
  }

  /** Participants known to the mixer. */
  get size(): number {
    return this.#participants.size;
  }

  /** Adds a participant, muted, or replaces its output. */
  add(participantId: string, output: MixOutput | undefined): void {
    const existing = this.#participants.get(participantId);
    if (existing !== undefined) {
      existing.output = output;
      return;
    }
    const { talking, jitterFrames } = this.#options;
    this.#participants.set(participantId, {
      muted: true,
      output,
      decoder: undefined,
      encoder: undefined,
      queue: new SampleQueue(jitterFrames * this.#frameSize),
      lastSequence: undefined,
      lastPacketTick: undefined,
      prebuffering: true,
      frame: undefined,
      frameBuffer: new Int16Array(this.#frameSize),
      active: false,
      mixed: false,
      talking: false,
      levelDbov: silenceDbov,
      detector: new TalkingDetector({
        startDbov: talking.startDbov,
        stopDbov: talking.stopDbov,
        windowFrames: Math.round(talking.windowMs / frameMs),
        holdFrames: Math.round(talking.holdMs / frameMs),
      }),
    });
  }

  /** Removes a participant; reports the end of its talking first. */
  remove(participantId: string): void {
    const participant = this.#participants.get(participantId);
    if (participant === undefined) return;
    if (participant.detector.reset() === false) this.#onTalking(participantId, false);
    this.#participants.delete(participantId);
    this.#dominant?.forget(participantId);
  }

  /** Mutes or unmutes; a muted participant is neither decoded nor heard. */
  setMuted(participantId: string, muted: boolean): void {
    const participant = this.#participants.get(participantId);
    if (participant === undefined || participant.muted === muted) return;
    participant.muted = muted;
    participant.queue.clear();
    participant.lastSequence = undefined;
    participant.lastPacketTick = undefined;
    participant.prebuffering = true;
    if (muted && participant.detector.reset() === false) this.#onTalking(participantId, false);
  }

  /**
   * An Opus packet from a participant; late or duplicate packets are dropped. `levelDbov` is the
   * level its sender states (RFC 6464's audio level extension, in dBov). With it, a participant
   * left out of a mix that has more senders than `mixedSpeakers` is not decoded: the stated level
   * alone tells whether it talks and whether it should take a place. Decoding starts again once it
   * is mixed, with a fresh decoder and `prebufferFrames` of delay; a decoded frame's level is
   * always measured, so a sender that overstates its level wins at most its own decoding.
   */
  push(participantId: string, sequenceNumber: number, payload: Uint8Array, levelDbov?: number): void {
    const participant = this.#participants.get(participantId);
    if (participant === undefined || participant.muted || payload.length === 0) return;
    if (
      participant.lastSequence !== undefined &&
      sequenceDistance(participant.lastSequence, sequenceNumber) <= 0
    ) {
      this.stats.packetsDropped += 1;
      return;
    }
    participant.lastSequence = sequenceNumber;
    participant.lastPacketTick = this.#frameIndex;
    const limit = this.#options.mixedSpeakers;
    if (
      levelDbov !== undefined &&
      limit !== undefined &&
      !participant.mixed &&
      this.#activeLastTick > limit
    ) {
      participant.decoder = undefined;
      participant.queue.clear();
      participant.prebuffering = true;
      this.stats.framesSkipped += 1;
      this.#detectTalking(participantId, participant, levelDbov);
      return;
    }
    participant.decoder ??= this.#options.codec.createDecoder({ sampleRate: this.#options.sampleRate });
    let pcm: Int16Array;
    try {
      pcm = participant.decoder.decode(payload);
    } catch {
      this.stats.packetsDropped += 1;
      return;
    }
    this.stats.framesDecoded += 1;
    participant.queue.push(pcm);
    this.#detectTalking(participantId, participant, frameLevelDbov(pcm));
  }

  #detectTalking(participantId: string, participant: MixParticipant, levelDbov: number): void {
    const change = participant.detector.push(levelDbov);
    if (change !== undefined) this.#onTalking(participantId, change);
  }

  /**
   * Mixes and sends one frame. Called every 20 ms by the router's clock, or by tests. Allocates
   * nothing but the encoded packets: frames, the sum and each mix live in buffers made once.
   */
  tick(): void {
    const frameIndex = this.#frameIndex;
    this.#frameIndex += 1;
    this.stats.ticks += 1;
    this.#pickDominantSpeaker();
    let active = 0;
    for (const participant of this.#participants.values()) {
      participant.frame = this.#takeFrame(participant, frameIndex);
      participant.active = participant.frame !== undefined;
      participant.talking = participant.detector.talking;
      participant.levelDbov = participant.detector.averageDbov;
      if (participant.active) active += 1;
    }
    this.#activeLastTick = active;
    if (active === 0) return;
    chooseMixedSpeakers(this.#participants, this.#options.mixedSpeakers ?? this.#participants.size);
    const total = this.#total;
    let mixed = 0;
    for (const participant of this.#participants.values()) {
      const frame = participant.frame;
      if (!participant.mixed || frame === undefined) continue;
      if (mixed === 0) total.set(frame);
      else
        for (let index = 0; index < total.length; index += 1)
          total[index] = (total[index] as number) + (frame[index] as number);
      mixed += 1;
    }
    let shared: Uint8Array | undefined;
    for (const participant of this.#participants.values()) {
      if (participant.output === undefined) continue;
      const own = participant.mixed ? participant.frame : undefined;
      if (own === undefined) {
        shared ??= this.#encodeShared(total);
        participant.output(shared, frameIndex);
      } else {
        // Everyone else's sum; silence, encoded on its own stream, when nobody else sends.
        participant.encoder ??= this.#createEncoder();
        participant.output(this.#encode(participant.encoder, total, own), frameIndex);
      }
    }
  }

  /**
   * A participant's frame for this tick: its next queued frame once prebuffered, silence while it
   * sent within {@link activeTicks} but has nothing queued, else undefined (it is not sending).
   */
  #takeFrame(participant: MixParticipant, frameIndex: number): Int16Array | undefined {
    if (participant.muted || participant.lastPacketTick === undefined) return undefined;
    if (participant.prebuffering && participant.queue.size >= this.#prebufferSamples)
      participant.prebuffering = false;
    if (!participant.prebuffering && participant.queue.takeInto(participant.frameBuffer))
      return participant.frameBuffer;
    participant.prebuffering = true;
    if (frameIndex - participant.lastPacketTick < activeTicks) return this.#silence;
    participant.lastPacketTick = undefined;
    return undefined;
  }

  #pickDominantSpeaker(): void {
    if (this.#dominant === undefined) return;
    const levels: SpeakerLevel[] = [];
    for (const [participantId, participant] of this.#participants) {
      if (participant.muted || !participant.detector.talking) continue;
      levels.push({ participantId, talking: true, levelDbov: participant.detector.averageDbov });
    }
    const changed = this.#dominant.push(levels);
    if (changed !== undefined) this.#onDominantSpeaker?.(changed);
  }

  #encodeShared(total: Int32Array): Uint8Array {
    this.#sharedEncoder ??= this.#createEncoder();
    return this.#encode(this.#sharedEncoder, total, undefined);
  }

  /** Encodes the sum less `own`, clipped to 16 bits, through the mixer's one scratch buffer (encoders copy it). */
  #encode(encoder: AudioEncoder, total: Int32Array, own: Int16Array | undefined): Uint8Array {
    const pcm = this.#mix;
    for (let index = 0; index < pcm.length; index += 1) {
      const sample = (total[index] as number) - (own === undefined ? 0 : (own[index] as number));
      pcm[index] = Math.min(32_767, Math.max(-32_768, sample));
    }
    this.stats.framesEncoded += 1;
    return encoder.encode(pcm);
  }

  #createEncoder(): AudioEncoder {
    return this.#options.codec.createEncoder({
      sampleRate: this.#options.sampleRate,
      bitrate: this.#options.bitrate,
      complexity: this.#options.complexity,
      application: this.#options.application,
    });
  }
}
