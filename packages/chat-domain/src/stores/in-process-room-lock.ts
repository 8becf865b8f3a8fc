import { roomNotFound } from '../errors.js';
import type { ChatStore } from '../ports/chat-store.js';
import type { LockedRoom } from '../ports/locked-room.js';
import { createKeyedLock } from '../service/keyed-lock.js';

/** A {@link ChatStore} before {@link withInProcessRoomLock} adds its `withRoomLock`. */
export type ChatStoreWithoutRoomLock = Omit<ChatStore, 'withRoomLock'>;

/**
 * Completes a store that only one process opens (memory, SQLite in exclusive locking mode) with a
 * `withRoomLock` that serialises the calls of each room in this process and writes through the
 * store's own methods: with no other process on the data, that is all the locking the rules need.
 */
export function withInProcessRoomLock(store: ChatStoreWithoutRoomLock): ChatStore {
  const locks = createKeyedLock();
  return {
    ...store,
    withRoomLock(roomId, work) {
      return locks.run(roomId, async () => {
        const room = await store.getRoom(roomId);
        if (room === undefined) {
          throw roomNotFound(roomId);
        }
        const locked: LockedRoom = {
          room,
          getMember: (userId) => store.getMember(roomId, userId),
          listMembers: () => store.listMembers(roomId),
          insertMember: (member, settings, messages) =>
            store.insertMember(roomId, member, settings, messages),
          deleteMember: (userId, messages) => store.deleteMember(roomId, userId, messages),
          setOwner: (userId, owner) => store.setOwner(roomId, userId, owner),
          deleteRoom: () => store.deleteRoom(roomId),
        };
        return work(locked);
      });
    },
  };
}
