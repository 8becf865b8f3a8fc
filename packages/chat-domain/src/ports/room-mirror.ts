/**
 * Told about every committed change of a room that a mirror of the rooms (the XMPP server) follows:
 * created, renamed or redescribed, deleted, members or owners changed. Called after the change is
 * stored and before the messages the change sends, so the mirror has the room when they arrive.
 * Failures are reported to `onBackgroundError` and never undo the change.
 */
export interface RoomMirror {
  roomChanged(roomId: string): Promise<void>;
}

/** A {@link RoomMirror} that does nothing: the default. */
export const ignoringRoomMirror: RoomMirror = {
  roomChanged: async () => {},
};
