import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { createMemoryEventBus } from '../adapters/memory-event-bus.js';
import { ChatError } from '../errors.js';
import { parseInput } from '../inputs.js';
import { backgroundErrorHandlerSchema, idFactorySchema, portSchema } from '../option-schemas.js';
import type { ChatStore } from '../ports/chat-store.js';
import { type Clock, systemClock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import { hasMeetingCoordination } from '../ports/meeting-coordination.js';
import { createKeyedLock, type KeyedLock } from '../service/keyed-lock.js';
import type { MediaServer } from './media-server.js';
import { createMemoryMediaServer } from './memory-media-server.js';

/** Limits of the meeting service; each has a default and a reason. */
export const meetingLimitsSchema = z.strictObject({
  /**
   * Participants of one meeting: each one costs an audio decode in the mix and a forwarded stream
   * per watcher. 100 is the original's video room size (`publishers 100`). @default 100
   */
  maxParticipants: z.number().int().min(1).default(100),
  /** Expired meetings removed per batch of {@link MeetingService.removeExpiredMeetings}. @default 100 */
  expiredBatch: z.number().int().min(1).default(100),
});

/** Options of {@link createMeetingService}. The store is the chat store: meetings live in rooms. */
export const meetingServiceOptionsSchema = z.strictObject({
  store: portSchema<ChatStore>('ChatStore', 'insertMeeting'),
  /** The chat service's bus, so that meeting events reach the same sessions. @default an in-process bus */
  events: portSchema<EventBus>('EventBus', 'publish').optional(),
  /** @default an in-memory media server without media (tests) */
  media: portSchema<MediaServer>('MediaServer', 'openMeeting').optional(),
  /** @default the system clock */
  clock: portSchema<Clock>('Clock', 'now').optional(),
  /**
   * Serialises start, stop, join, leave and delete of each meeting (keyed by meeting id). Several
   * server processes sharing a database need one lock across them (e.g. on Redis).
   * @default a lock within this process
   */
  locks: portSchema<KeyedLock>('KeyedLock', 'run').optional(),
  /**
   * Fences each meeting's lock: under the lock, before any write, the service claims the meeting's
   * next fencing token from the store (which must implement `MeetingCoordination`, as the PostgreSQL
   * store does) and passes it with its writes, so a holder whose lock expired while it was frozen
   * cannot write after another took the lock. For several API nodes. @default false
   */
  fencing: z.boolean().default(false),
  /**
   * Called under a meeting's lock once its fencing token is claimed, before the work: throws to
   * refuse the work (e.g. an API node that may have been declared dead). @default admits everything
   */
  admit: z.custom<() => void>((value) => typeof value === 'function').optional(),
  /** Makes ids. @default crypto.randomUUID */
  createId: idFactorySchema.optional(),
  /** Told about failures after a change was committed (event delivery, media cleanup). @default ignores them */
  onBackgroundError: backgroundErrorHandlerSchema.optional(),
  limits: meetingLimitsSchema.prefault({}),
});

/** Input of {@link createMeetingService}. */
export type MeetingServiceOptions = z.input<typeof meetingServiceOptionsSchema>;
/** Limits after defaults. */
export type MeetingLimits = z.output<typeof meetingLimitsSchema>;

/** {@link MeetingServiceOptions} with every default applied. */
export interface ResolvedMeetingServiceOptions {
  store: ChatStore;
  events: EventBus;
  media: MediaServer;
  clock: Clock;
  locks: KeyedLock;
  fencing: boolean;
  admit: () => void;
  createId: () => string;
  onBackgroundError: (error: unknown, context: string) => void;
  limits: MeetingLimits;
}

/** Parses the options once and fills every default. @throws ChatError `invalid_input` */
export function resolveMeetingServiceOptions(options: MeetingServiceOptions): ResolvedMeetingServiceOptions {
  const parsed = parseInput(meetingServiceOptionsSchema, options, 'meeting service options');
  if (parsed.fencing && !hasMeetingCoordination(parsed.store)) {
    throw new ChatError(
      'invalid_input',
      'invalid meeting service options: `fencing`: expected a store with claimMeetingFence() (the PostgreSQL store) but received one without',
    );
  }
  return {
    store: parsed.store,
    events: parsed.events ?? createMemoryEventBus(),
    media: parsed.media ?? createMemoryMediaServer({ maxParticipants: parsed.limits.maxParticipants }),
    clock: parsed.clock ?? systemClock,
    locks: parsed.locks ?? createKeyedLock(),
    fencing: parsed.fencing,
    admit: parsed.admit ?? (() => {}),
    createId: parsed.createId ?? randomUUID,
    onBackgroundError: parsed.onBackgroundError ?? (() => {}),
    limits: parsed.limits,
  };
}
