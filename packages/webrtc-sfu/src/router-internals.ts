import type { AudioMixer } from './audio/audio-mixer.js';
import type { SfuOptions } from './options.js';
import type { Producer, StreamKind } from './producer.js';
import type { Session } from './session.js';
import type { SfuTotals } from './sfu-stats.js';

/** What a {@link Session} needs from its router; not part of the public API. */
export interface RouterInternals {
  readonly options: SfuOptions;
  readonly mixer: AudioMixer;
  /** The SFU's running totals. */
  readonly totals: SfuTotals;
  /** The mixer gained or lost a participant: start or stop its clock. */
  mixerChanged(): void;
  findProducer(participantId: string, kind: StreamKind): Producer | undefined;
  addProducer(producer: Producer): void;
  removeProducer(producer: Producer): void;
  removeSession(session: Session): void;
}
