import type {
  MirrorOperation,
  MirrorOutbox,
  MirrorOutboxEntry,
  OutboxMessage,
} from '../ports/mirror-outbox.js';

/** The mirror outbox of the memory store, and `roomChanged`, which its writes call. */
export interface MemoryMirrorOutbox extends MirrorOutbox {
  /** Queues a `room` operation for `roomId` when the outbox is enabled. */
  roomChanged(roomId: string): void;
  /** Queues messages when the outbox is enabled. */
  messagesQueued(messages: readonly OutboxMessage[] | undefined): void;
}

/** The mirror outbox of the memory store; `roomIds` lists the rooms it holds. */
export function createMemoryMirrorOutbox(roomIds: () => Iterable<string>): MemoryMirrorOutbox {
  const queue: MirrorOutboxEntry[] = [];
  let nextSequence = 1;
  let lease: { owner: string; until: Date } | undefined;
  let enabled = false;
  const copy = (entry: MirrorOutboxEntry): MirrorOutboxEntry => structuredClone(entry);
  const push = (operation: MirrorOperation, createdAt: Date) => {
    queue.push({ sequence: nextSequence++, operation: structuredClone(operation), attempts: 0, createdAt });
  };
  const messagesQueued = (messages: readonly OutboxMessage[] | undefined) => {
    if (!enabled) return;
    for (const message of messages ?? []) push(message, new Date());
  };
  return {
    roomChanged(roomId) {
      if (enabled) push({ kind: 'room', roomId }, new Date());
    },
    messagesQueued,
    async queueMirrorMessages(messages) {
      messagesQueued(messages);
    },
    async setMirrorOutboxEnabled(value) {
      enabled = value;
    },
    async enqueueMirrorOperations(operations, createdAt) {
      for (const operation of operations) push(operation, createdAt);
    },
    async claimMirrorOperations({ owner, limit, now, leaseUntil }) {
      if (lease !== undefined && lease.owner !== owner && lease.until > now) return [];
      lease = { owner, until: leaseUntil };
      return queue.slice(0, limit).map(copy);
    },
    async forgetMirrorOperations(sequences) {
      const forgotten = new Set(sequences);
      for (let index = queue.length - 1; index >= 0; index--) {
        if (forgotten.has(queue[index]?.sequence ?? -1)) queue.splice(index, 1);
      }
      return true;
    },
    async recordMirrorFailure(sequence) {
      const entry = queue.find((candidate) => candidate.sequence === sequence);
      if (entry !== undefined) entry.attempts += 1;
      return true;
    },
    async countMirrorOperations() {
      return queue.length;
    },
    async listRoomIds({ limit, after }) {
      return [...roomIds()]
        .filter((id) => after === undefined || id > after)
        .sort()
        .slice(0, limit);
    },
  };
}
