/** Quietest level reported, in dBov (the RFC 6464 floor). */
export const silenceDbov = -127;

/** Root-mean-square level of a PCM frame in dBov: 0 is a full-scale square wave. Pure. */
export function frameLevelDbov(pcm: Int16Array): number {
  if (pcm.length === 0) return silenceDbov;
  let sum = 0;
  for (let index = 0; index < pcm.length; index += 1) {
    const sample = pcm[index] ?? 0;
    sum += sample * sample;
  }
  const rms = Math.sqrt(sum / pcm.length) / 32_768;
  return rms === 0 ? silenceDbov : Math.max(silenceDbov, 20 * Math.log10(rms));
}

/** Thresholds of a {@link TalkingDetector}, in frames. */
export interface TalkingDetectorOptions {
  /** Average level at or above which talking starts, in dBov. */
  startDbov: number;
  /** Average level below which talking may stop, in dBov; at most `startDbov`. */
  stopDbov: number;
  /** Frames averaged. */
  windowFrames: number;
  /** Consecutive frames the average must stay below `stopDbov` before talking stops. */
  holdFrames: number;
}

/**
 * Decides from frame levels whether a participant is talking, with hysteresis: talking starts when
 * the average over a full window reaches `startDbov`, and stops only after the average stayed below
 * `stopDbov` for `holdFrames`. Pure.
 */
export class TalkingDetector {
  readonly #options: TalkingDetectorOptions;
  readonly #levels: number[];
  #next = 0;
  #count = 0;
  #sum = 0;
  #talking = false;
  #quietFrames = 0;

  constructor(options: TalkingDetectorOptions) {
    this.#options = { ...options, windowFrames: Math.max(1, options.windowFrames) };
    this.#levels = new Array(this.#options.windowFrames).fill(silenceDbov);
    this.#sum = silenceDbov * this.#options.windowFrames;
  }

  /** Whether the participant is talking now. */
  get talking(): boolean {
    return this.#talking;
  }

  /** The average level over the last window in dBov (the floor until a window is full). */
  get averageDbov(): number {
    return this.#count < this.#options.windowFrames ? silenceDbov : this.#sum / this.#options.windowFrames;
  }

  /** Adds one frame's level; returns the new state when it changed, else `undefined`. */
  push(levelDbov: number): boolean | undefined {
    const { windowFrames, startDbov, stopDbov, holdFrames } = this.#options;
    this.#sum += levelDbov - (this.#levels[this.#next] ?? silenceDbov);
    this.#levels[this.#next] = levelDbov;
    this.#next = (this.#next + 1) % windowFrames;
    this.#count = Math.min(windowFrames, this.#count + 1);
    if (this.#count < windowFrames) return undefined;
    const average = this.#sum / windowFrames;
    if (!this.#talking) {
      if (average < startDbov) return undefined;
      this.#talking = true;
      this.#quietFrames = 0;
      return true;
    }
    this.#quietFrames = average < stopDbov ? this.#quietFrames + 1 : 0;
    if (this.#quietFrames < holdFrames) return undefined;
    this.#talking = false;
    return false;
  }

  /** Forgets the history (on mute); returns `false` when the participant was talking, else `undefined`. */
  reset(): false | undefined {
    const wasTalking = this.#talking;
    this.#levels.fill(silenceDbov);
    this.#sum = silenceDbov * this.#levels.length;
    this.#count = 0;
    this.#next = 0;
    this.#talking = false;
    this.#quietFrames = 0;
    return wasTalking ? false : undefined;
  }
}
