import { z } from 'zod';
import { createEventMessageDispatcher } from '../adapters/event-message-dispatcher.js';
import { createMemoryBlobStore } from '../adapters/memory-blob-store.js';
import { createMemoryEventBus } from '../adapters/memory-event-bus.js';
import { timeOrderedUuid } from '../ids.js';
import { parseInput } from '../inputs.js';
import { backgroundErrorHandlerSchema, idFactorySchema, portSchema } from '../option-schemas.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { ChatStore } from '../ports/chat-store.js';
import { type Clock, systemClock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { MessageDispatcher } from '../ports/message-dispatcher.js';
import { ignoringRoomObserver, type RoomObserver } from '../ports/room-observer.js';
import { createOpenUserDirectory, type UserDirectory } from '../ports/user-directory.js';
import { createMemoryChatStore } from '../stores/memory-chat-store.js';

/** Limits of the chat service; each has a default and a reason. */
export const chatLimitsSchema = z.strictObject({
  /** Most people in a group or temporary room: bounds the fan-out of every room event (the original's maxGroupMembers). @default 128 */
  maxRoomMembers: z.number().int().min(2).default(128),
  /**
   * Most rooms others may put one user in (inviting them to a new room, adding them as a member):
   * bounds what one account can make others store. The user's own creations count against twice
   * this, so nobody can keep a user from creating rooms; one `GET /rooms` lists at most twice this.
   * Past either, the room or the addition is `too_many_rooms`.
   * @default 10000
   */
  maxRoomsPerUser: z.number().int().min(1).default(10_000),
  /** Largest room picture: pictures are shown small and read whole into memory to check them. @default 524288 (512 KiB, as the original) */
  maxPictureBytes: z
    .number()
    .int()
    .positive()
    .default(512 * 1024),
  /** Largest attachment: bounds disk use per upload. @default 52428800 (50 MiB) */
  maxAttachmentBytes: z
    .number()
    .int()
    .positive()
    .default(50 * 1024 * 1024),
  /** Attachments per page when `itemsNumber` is not given (as the original). @default 10 */
  defaultAttachmentsPage: z.number().int().positive().default(10),
  /** Largest `itemsNumber`: bounds one listing's work. @default 100 */
  maxAttachmentsPage: z.number().int().positive().default(100),
  /**
   * Most messages one forward request carries: the original web client sends every selected
   * message in one request, so this stays well above what a person selects; each may copy a file.
   * @default 500
   */
  maxForwardedMessages: z.number().int().positive().default(500),
  /** Longest `originalMessage` of a forward: a stanza, not a document. @default 65536 */
  maxOriginalMessageLength: z
    .number()
    .int()
    .positive()
    .default(64 * 1024),
});

/** Options of {@link createChatService}; every port defaults to its in-memory implementation. */
export const chatServiceOptionsSchema = z.strictObject({
  /** @default an in-memory store */
  store: portSchema<ChatStore>('ChatStore', 'insertRoom').optional(),
  /** @default an in-memory blob store */
  blobs: portSchema<BlobStore>('BlobStore', 'put').optional(),
  /** @default every UUID is a user */
  users: portSchema<UserDirectory>('UserDirectory', 'userExists').optional(),
  /** @default an in-process bus */
  events: portSchema<EventBus>('EventBus', 'publish').optional(),
  /** @default messages become events on `events` */
  dispatcher: portSchema<MessageDispatcher>('MessageDispatcher', 'dispatch').optional(),
  /** @default the system clock */
  clock: portSchema<Clock>('Clock', 'now').optional(),
  /** Makes ids. @default {@link timeOrderedUuid} (version 7 UUIDs) */
  createId: idFactorySchema.optional(),
  /** Told about event deliveries and blob deletions that failed after a change was committed. @default ignores them */
  onBackgroundError: backgroundErrorHandlerSchema.optional(),
  /** Told when a room goes or loses a member (meetings follow). @default does nothing */
  roomObserver: portSchema<RoomObserver>('RoomObserver', 'roomDeleting').optional(),
  limits: chatLimitsSchema.prefault({}),
});

/** Input of {@link createChatService}. */
export type ChatServiceOptions = z.input<typeof chatServiceOptionsSchema>;
/** Limits after defaults. */
export type ChatLimits = z.output<typeof chatLimitsSchema>;

/** {@link ChatServiceOptions} with every default applied. */
export interface ResolvedChatServiceOptions {
  store: ChatStore;
  blobs: BlobStore;
  users: UserDirectory;
  events: EventBus;
  dispatcher: MessageDispatcher;
  clock: Clock;
  createId: () => string;
  onBackgroundError: (error: unknown, context: string) => void;
  roomObserver: RoomObserver;
  limits: ChatLimits;
}

/** Parses the options once and fills every default. @throws ChatError `invalid_input` */
export function resolveChatServiceOptions(options: ChatServiceOptions = {}): ResolvedChatServiceOptions {
  const parsed = parseInput(chatServiceOptionsSchema, options, 'chat service options');
  const events = parsed.events ?? createMemoryEventBus();
  const clock = parsed.clock ?? systemClock;
  return {
    store: parsed.store ?? createMemoryChatStore(),
    blobs: parsed.blobs ?? createMemoryBlobStore(),
    users: parsed.users ?? createOpenUserDirectory(),
    events,
    dispatcher: parsed.dispatcher ?? createEventMessageDispatcher(events, clock),
    clock,
    createId: parsed.createId ?? timeOrderedUuid,
    onBackgroundError: parsed.onBackgroundError ?? (() => {}),
    roomObserver: parsed.roomObserver ?? ignoringRoomObserver,
    limits: parsed.limits,
  };
}
