import { ChatError, roomNotFound } from '../errors.js';
import type { ChatEventPayload, RoomMessagePayload, SystemMessageOperation } from '../events.js';
import { parseId } from '../ids.js';
import type { Actor, MemberRecord, RoomRecord } from '../model.js';
import type { OutboxMessage } from '../ports/mirror-outbox.js';
import { requireMember } from '../room-rules.js';
import { createKeyedLock, type KeyedLock } from './keyed-lock.js';
import type { ResolvedChatServiceOptions } from './options.js';

/** A room with the caller's membership. */
export interface RoomAccess {
  room: RoomRecord;
  caller: MemberRecord;
}

/** What every operation of the service shares. */
export interface ServiceContext extends ResolvedChatServiceOptions {
  /** Serialises membership changes per room within this process. */
  locks: KeyedLock;
  /** Parses the room id, loads the room and the caller's membership. @throws ChatError `room_not_found`, `not_a_member` */
  roomAsMember(actor: Actor, roomId: string): Promise<RoomAccess>;
  /** Publishes an event to users after a committed change; failures go to `onBackgroundError`. */
  notify(userIds: readonly string[], payload: ChatEventPayload): Promise<void>;
  /**
   * A message with its id, for the chat mirror: handed to the store write it goes with, which
   * queues it in the same transaction while a mirror's outbox is enabled.
   */
  outboxMessage(message: RoomMessagePayload): OutboxMessage;
  /** {@link outboxMessage} of a `ROOM_SYSTEM_MESSAGE` sent by `senderId` into `roomId`. */
  systemNotice(
    roomId: string,
    senderId: string,
    operation: SystemMessageOperation,
    fields?: Record<string, string>,
  ): OutboxMessage;
  /**
   * Delivers a message into a room. When `required`, a failure throws `dependency_failed`
   * (the message is the operation); otherwise it goes to `onBackgroundError`.
   */
  dispatch(message: RoomMessagePayload, memberIds: readonly string[], required?: boolean): Promise<void>;
  /** Deletes the bytes of blobs whose metadata is gone; failures stay queued for the next run. */
  purgeBlobs(): Promise<number>;
}

const purgeBatch = 100;

/** Builds the {@link ServiceContext} from resolved options. */
export function createServiceContext(options: ResolvedChatServiceOptions): ServiceContext {
  const { store, blobs, events, clock, dispatcher, onBackgroundError } = options;

  const purgeBlobs = async (): Promise<number> => {
    let purged = 0;
    for (;;) {
      const keys = await store.listPendingBlobDeletions(purgeBatch);
      const done: string[] = [];
      for (const key of keys) {
        try {
          await blobs.delete(key);
          done.push(key);
        } catch (error) {
          onBackgroundError(error, `deleting blob ${key}`);
        }
      }
      if (done.length > 0) await store.forgetPendingBlobDeletions(done);
      purged += done.length;
      if (keys.length < purgeBatch || done.length < keys.length) return purged;
    }
  };

  return {
    ...options,
    locks: createKeyedLock(),
    async roomAsMember(actor, rawRoomId) {
      const roomId = parseId(rawRoomId, 'room_not_found', 'room');
      const room = await store.getRoom(roomId);
      if (room === undefined) throw roomNotFound(roomId);
      const caller = requireMember(room, await store.getMember(roomId, actor.userId));
      return { room, caller };
    },
    async notify(userIds, payload) {
      const event = { ...payload, sentDate: clock.now().toISOString() };
      try {
        await events.publish(userIds.map((userId) => ({ userId, event })));
      } catch (error) {
        onBackgroundError(error, `publishing ${payload.type}`);
      }
    },
    outboxMessage: (message) => ({ kind: 'message', id: options.createId(), message }),
    systemNotice: (roomId, senderId, operation, fields = {}) => ({
      kind: 'message',
      id: options.createId(),
      message: { type: 'ROOM_SYSTEM_MESSAGE', roomId, senderId, operation, fields },
    }),
    async dispatch(message, memberIds, required = false) {
      try {
        await dispatcher.dispatch(message, memberIds);
      } catch (error) {
        if (required) {
          throw new ChatError(
            'dependency_failed',
            `expected the message to be delivered but delivery failed`,
            { cause: error },
          );
        }
        onBackgroundError(error, `delivering ${message.type}`);
      }
    },
    async purgeBlobs() {
      try {
        return await purgeBlobs();
      } catch (error) {
        onBackgroundError(error, 'purging deleted blobs');
        return 0;
      }
    },
  };
}
