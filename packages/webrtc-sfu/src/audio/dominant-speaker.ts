/** Settings of a {@link DominantSpeakerDetector}, in mixer frames (20 ms each). */
export interface DominantSpeakerOptions {
  /** Frames a challenger must lead in a row before it takes over. */
  holdFrames: number;
  /** How much louder than the current dominant speaker (if still talking) a challenger must be, in dB. */
  marginDb: number;
}

/** One participant's state on a mixer frame. */
export interface SpeakerLevel {
  participantId: string;
  /** Whether the talking detector says the participant talks (with its own hysteresis). */
  talking: boolean;
  /** The participant's recent average level in dBov. */
  levelDbov: number;
}

/**
 * Picks the meeting's dominant speaker from the talking participants' levels, with hysteresis. On
 * each frame the challenger is the loudest participant who is talking; it takes over once it has been
 * the challenger for `holdFrames` frames in a row and, on each of them, the current dominant speaker
 * was either not talking or at least `marginDb` quieter. When nobody talks, the last dominant
 * speaker stays. The first speaker of a meeting also needs `holdFrames` frames. Pure.
 */
export class DominantSpeakerDetector {
  readonly #options: DominantSpeakerOptions;
  #current: string | undefined;
  #challenger: string | undefined;
  #leadFrames = 0;

  constructor(options: DominantSpeakerOptions) {
    this.#options = { ...options, holdFrames: Math.max(1, options.holdFrames) };
  }

  /** The dominant speaker now, if anyone spoke long enough. */
  get current(): string | undefined {
    return this.#current;
  }

  /** Takes one frame's levels; returns the new dominant speaker when it changed, else `undefined`. */
  push(levels: Iterable<SpeakerLevel>): string | undefined {
    let loudest: SpeakerLevel | undefined;
    let current: SpeakerLevel | undefined;
    for (const level of levels) {
      if (level.participantId === this.#current) current = level;
      if (level.talking && (loudest === undefined || level.levelDbov > loudest.levelDbov)) loudest = level;
    }
    const leads =
      loudest !== undefined &&
      loudest.participantId !== this.#current &&
      (current === undefined ||
        !current.talking ||
        loudest.levelDbov >= current.levelDbov + this.#options.marginDb);
    if (!leads || loudest === undefined) {
      this.#challenger = undefined;
      this.#leadFrames = 0;
      return undefined;
    }
    if (this.#challenger !== loudest.participantId) {
      this.#challenger = loudest.participantId;
      this.#leadFrames = 0;
    }
    this.#leadFrames += 1;
    if (this.#leadFrames < this.#options.holdFrames) return undefined;
    this.#current = loudest.participantId;
    this.#challenger = undefined;
    this.#leadFrames = 0;
    return this.#current;
  }

  /** Forgets a participant who left; if it was the dominant speaker, there is none until the next one. */
  forget(participantId: string): void {
    if (this.#current === participantId) this.#current = undefined;
    if (this.#challenger === participantId) {
      this.#challenger = undefined;
      this.#leadFrames = 0;
    }
  }
}
