import { randomUUID } from 'node:crypto';
import { AudioMixer, frameMs } from './audio/audio-mixer.js';
import { MixerClock } from './audio/mixer-clock.js';
import type { AudioCodec } from './audio/opus-codec.js';
import { SfuError } from './errors.js';
import type { SfuOptions } from './options.js';
import type { Producer, StreamKind } from './producer.js';
import type { RouterInternals } from './router-internals.js';
import { Session } from './session.js';
import type { SfuTotals } from './sfu-stats.js';
import { streamKey } from './subscription-connection.js';
import { TypedEmitter } from './typed-events.js';

/** A change of a participant's talking state. */
export interface TalkingChange {
  participantId: string;
  talking: boolean;
}

/** A new dominant speaker of a router's meeting. */
export interface DominantSpeakerChange {
  participantId: string;
}

/** Events of a {@link Router}. */
export interface RouterEvents extends Record<string, unknown[]> {
  /** A participant started or stopped talking (audio level with hysteresis). */
  talking: [TalkingChange];
  /**
   * Another participant became the dominant speaker: the loudest talking participant for
   * `audio.dominantSpeaker.holdMs` in a row, by `marginDb` over a dominant speaker still talking.
   */
  dominantspeaker: [DominantSpeakerChange];
  /** A participant published a new video or screen stream. */
  producer: [Producer];
  /** A participant's session closed. */
  sessionclose: [Session];
  /** The router and all its sessions closed. */
  close: [];
}

/**
 * The media of one meeting: its sessions, their published streams and the audio mixer. Closing
 * the router closes every session in it.
 */
export class Router extends TypedEmitter<RouterEvents> {
  readonly #options: SfuOptions;
  readonly #sessions = new Map<string, Session>();
  readonly #producers = new Map<string, Producer>();
  readonly #mixer: AudioMixer;
  readonly #clock: MixerClock;
  readonly #internals: RouterInternals;
  readonly #onClose: (router: Router) => void;
  readonly #totals: SfuTotals;
  #closed = false;

  /** @internal Routers are made by {@link Sfu.createRouter}. */
  constructor(
    /** The router's id, e.g. the meeting id. */
    readonly id: string,
    options: SfuOptions,
    audioCodec: AudioCodec,
    onClose: (router: Router) => void,
    totals: SfuTotals,
  ) {
    super();
    this.#options = options;
    this.#totals = totals;
    this.#onClose = onClose;
    this.#mixer = new AudioMixer(
      { codec: audioCodec, ...options.audio },
      (participantId, talking) => this.emit('talking', { participantId, talking }),
      (participantId) => this.emit('dominantspeaker', { participantId }),
    );
    this.#clock = new MixerClock(() => this.#mixer.tick(), frameMs);
    this.#internals = this.#createInternals();
  }

  /** Whether {@link Router.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The sessions by participant id. */
  get sessions(): ReadonlyMap<string, Session> {
    return this.#sessions;
  }

  /** The dominant speaker now, if anyone talked long enough. */
  get dominantSpeaker(): string | undefined {
    return this.#mixer.dominantSpeaker;
  }

  /** Published video and screen streams now. */
  get producerCount(): number {
    return this.#producers.size;
  }

  /** Mixer counters, for monitoring and benchmarks. */
  get audioStats(): AudioMixer['stats'] {
    return this.#mixer.stats;
  }

  /**
   * Adds a participant.
   * @throws SfuError `session_exists` when the participant has a session (close it first),
   *   `limit_exceeded` past `limits.sessionsPerRouter`, `closed`.
   */
  createSession(participantId: string = randomUUID()): Session {
    if (this.#closed) throw new SfuError('closed', `router ${this.id} is closed`);
    if (this.#sessions.has(participantId)) {
      throw new SfuError(
        'session_exists',
        `participant ${participantId} already has a session in router ${this.id}`,
      );
    }
    const limit = this.#options.limits.sessionsPerRouter;
    if (this.#sessions.size >= limit) {
      throw new SfuError(
        'limit_exceeded',
        `expected at most ${limit} sessions in router ${this.id} but it is full`,
        { details: { limit } },
      );
    }
    const session = new Session(participantId, this.#internals);
    this.#sessions.set(participantId, session);
    this.#totals.sessionsOpened += 1;
    return session;
  }

  /** The participant's session, if any. */
  getSession(participantId: string): Session | undefined {
    return this.#sessions.get(participantId);
  }

  /**
   * The participant's session.
   * @throws SfuError `session_not_found`.
   */
  requireSession(participantId: string): Session {
    const session = this.#sessions.get(participantId);
    if (session === undefined) {
      throw new SfuError(
        'session_not_found',
        `expected a session of ${participantId} in router ${this.id} but there is none`,
      );
    }
    return session;
  }

  /** The stream a participant publishes, if any. */
  getProducer(participantId: string, kind: StreamKind): Producer | undefined {
    return this.#producers.get(streamKey({ participantId, kind }));
  }

  /** Closes every session, stops the mixer. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const session of [...this.#sessions.values()]) session.close();
    this.#clock.stop();
    this.#onClose(this);
    this.emit('close');
    this.removeAllListeners();
  }

  #createInternals(): RouterInternals {
    return {
      options: this.#options,
      mixer: this.#mixer,
      totals: this.#totals,
      mixerChanged: () => {
        if (this.#mixer.size > 0 && !this.#closed) this.#clock.start();
        else this.#clock.stop();
      },
      findProducer: (participantId, kind) => this.getProducer(participantId, kind),
      addProducer: (producer) => {
        this.#producers.set(streamKey(producer), producer);
        this.emit('producer', producer);
      },
      removeProducer: (producer) => {
        const key = streamKey(producer);
        if (this.#producers.get(key) === producer) this.#producers.delete(key);
      },
      removeSession: (session) => {
        if (this.#sessions.get(session.participantId) !== session) return;
        this.#sessions.delete(session.participantId);
        this.emit('sessionclose', session);
      },
    };
  }
}
