import type { RoomMessagePayload } from '../events.js';

/**
 * One operation the chat mirror (XMPP) must apply. `room` brings the mirrored room in line with
 * the room as stored now (created, renamed, members and owners, or gone), so applying it twice or
 * late is harmless; `message` sends one message into the room, identified by `id`.
 */
export type MirrorOperation =
  | { kind: 'room'; roomId: string }
  | { kind: 'message'; id: string; message: RoomMessagePayload };

/**
 * A message for the mirror, handed to a store write so that it is queued in the write's own
 * transaction: the change and its message are committed together or not at all.
 */
export type OutboxMessage = Extract<MirrorOperation, { kind: 'message' }>;

/** A queued {@link MirrorOperation}: `sequence` orders the queue. */
export interface MirrorOutboxEntry {
  sequence: number;
  operation: MirrorOperation;
  /** Failed attempts so far. */
  attempts: number;
  createdAt: Date;
  /**
   * The fencing token of the lease the entry was claimed under, from a store that coordinates
   * several processes (PostgreSQL): pass it back with {@link MirrorLease} when forgetting the entry
   * or counting its failure. Absent from the others.
   */
  fence?: number;
}

/** The lease a drainer claimed entries under: its owner and the lease's fencing token. */
export interface MirrorLease {
  owner: string;
  fence: number;
}

/** Who asks for the queue, and for how long it may keep it. */
export interface MirrorOutboxClaim {
  /** Identifies the drainer (one per process). */
  owner: string;
  limit: number;
  now: Date;
  /** Until when the claim holds; a claim by another owner before then gets nothing. */
  leaseUntil: Date;
}

/**
 * The queue of mirror operations, kept in the chat database so that an operation written while
 * the mirror is down is applied once it is back. One drainer at a time holds the queue (a lease
 * renewed with each claim), so operations apply in order even with several server processes.
 *
 * While the outbox is enabled, the store itself queues a `room` operation in the same transaction
 * as every change a mirror follows: a room inserted, renamed or redescribed, or deleted; a member
 * inserted or deleted; an owner flag changed. A commit never happens without its operation.
 * The writes that take `messages` (a room, a member, a picture or an attachment inserted or
 * deleted) queue them after their room operations, in the same transaction, likewise only while
 * the outbox is enabled.
 */
export interface MirrorOutbox {
  /** Turns the store's own queueing of `room` operations on or off (off by default; kept in the database). */
  setMirrorOutboxEnabled(enabled: boolean): Promise<void>;
  /** Appends operations to the queue, in order, whether the outbox is enabled or not. */
  enqueueMirrorOperations(operations: readonly MirrorOperation[], createdAt: Date): Promise<void>;
  /**
   * Queues messages that go with no other write (a forwarded message), in order and in one
   * transaction, when the outbox is enabled; does nothing otherwise.
   */
  queueMirrorMessages(messages: readonly OutboxMessage[]): Promise<void>;
  /**
   * The oldest `limit` queued operations, when the lease is free, expired or already `owner`'s
   * (then renewed until `leaseUntil`); an empty list otherwise.
   */
  claimMirrorOperations(claim: MirrorOutboxClaim): Promise<MirrorOutboxEntry[]>;
  /**
   * Removes applied operations from the queue. With a `lease`, a store that coordinates several
   * processes removes them only while that lease is still the current one (same owner, no newer
   * token issued since: nobody else claimed the queue meanwhile) and answers false otherwise,
   * changing nothing; the others ignore it. True when the change was made.
   */
  forgetMirrorOperations(sequences: readonly number[], lease?: MirrorLease): Promise<boolean>;
  /** Counts one more failed attempt of an operation; `lease` and the answer as for forgetting. */
  recordMirrorFailure(sequence: number, lease?: MirrorLease): Promise<boolean>;
  /** How many operations wait in the queue. */
  countMirrorOperations(): Promise<number>;
  /** Ids of every room, in id order, after `after` (for a full resync of the mirror). */
  listRoomIds(page: { limit: number; after?: string | undefined }): Promise<string[]>;
  /**
   * Optional: tells `listener` whenever operations were queued, by this process or any other sharing
   * the database, so that the drainer holding the lease applies them at once instead of at its next
   * poll. `leaseOwner` is the owner whose lease was valid when they were queued, or `undefined` when
   * no lease was valid or the store cannot tell (after reconnecting, when notices may have been
   * missed): then any drainer should look. Resolves, with a function that stops listening, once the
   * store listens (or, if it could not, once it keeps trying in the background). Stores without it
   * (one process) leave the drainer to its own wake-ups and its poll.
   */
  onMirrorOperationsQueued?(listener: (leaseOwner: string | undefined) => void): Promise<() => Promise<void>>;
}
