/**
 * Told by the chat service about room changes that other parts of the domain follow (meetings).
 * Failures are reported to `onBackgroundError` and never undo the room change.
 */
export interface RoomObserver {
  /** A room is about to be deleted (its members still listed). */
  roomDeleting(roomId: string): Promise<void>;
  /** A member left or was removed from a room. */
  memberRemoved(roomId: string, userId: string): Promise<void>;
}

/** A {@link RoomObserver} that does nothing: the default. */
export const ignoringRoomObserver: RoomObserver = {
  roomDeleting: async () => {},
  memberRemoved: async () => {},
};
