import type {
  AttachmentRecord,
  MemberRecord,
  PictureRecord,
  RoomListing,
  RoomRecord,
  RoomUserSettingsRecord,
} from '../model.js';
import type { LockedRoom } from './locked-room.js';
import type { MeetingStore } from './meeting-store.js';
import type { MirrorOutbox, OutboxMessage } from './mirror-outbox.js';

/** Position after which {@link ChatStore.listAttachments} continues (newest first). */
export interface AttachmentCursor {
  createdAt: Date;
  id: string;
}

/** Position after which {@link ChatStore.listRoomsOfUser} continues (oldest first). */
export interface RoomCursor {
  createdAt: Date;
  id: string;
}

/** One page of {@link ChatStore.listRoomsOfUser}: at most `limit` rooms after `after`. */
export interface RoomPage {
  limit: number;
  after?: RoomCursor | undefined;
}

/** Changes of {@link ChatStore.updateRoom}; absent fields are kept. */
export interface RoomChanges {
  name?: string;
  description?: string;
  updatedAt: Date;
}

/**
 * Persistence of rooms, members, per-user settings and file metadata. Each method is atomic.
 * Whenever metadata that points at a blob is removed (room deleted, picture replaced or deleted,
 * attachment deleted) the store queues the blob key in the same transaction; the service deletes
 * the bytes afterwards and then forgets the key, so a crash in between only delays the cleanup.
 * Writes that refer to a room that no longer exists throw `room_not_found`. Writes that take
 * `messages` queue them for the chat mirror in their own transaction ({@link MirrorOutbox}).
 */
export interface ChatStore extends MeetingStore, MirrorOutbox {
  /**
   * Inserts a room and its members.
   * @throws ChatError `one_to_one_exists` when `oneToOneKey` is already used by another room.
   */
  insertRoom(
    room: RoomRecord,
    members: readonly MemberRecord[],
    oneToOneKey?: string,
    messages?: readonly OutboxMessage[],
  ): Promise<void>;
  getRoom(roomId: string): Promise<RoomRecord | undefined>;
  /** The one_to_one room inserted with this key, if any. */
  findOneToOneRoom(oneToOneKey: string): Promise<RoomRecord | undefined>;
  /** Rooms where `userId` is a member, oldest first, with members and/or the user's settings. */
  listRoomsOfUser(
    userId: string,
    include: { members: boolean; settings: boolean },
    page?: RoomPage,
  ): Promise<RoomListing[]>;
  /** How many rooms the user is a member of. */
  countRoomsOfUser(userId: string): Promise<number>;
  /** Applies the changes; returns the updated room or undefined when it does not exist. */
  updateRoom(
    roomId: string,
    changes: RoomChanges,
    messages?: readonly OutboxMessage[],
  ): Promise<RoomRecord | undefined>;
  /** Deletes the room with its members, settings, picture and attachment metadata; false if absent. */
  deleteRoom(roomId: string): Promise<boolean>;

  getMember(roomId: string, userId: string): Promise<MemberRecord | undefined>;
  /** Members in the order they joined; owners first among those who joined at the same time, then by id. */
  listMembers(roomId: string): Promise<MemberRecord[]>;
  /**
   * Adds a member, with settings when `settings` is given.
   * @throws ChatError `already_member`, `room_not_found`
   */
  insertMember(
    roomId: string,
    member: MemberRecord,
    settings?: RoomUserSettingsRecord,
    messages?: readonly OutboxMessage[],
  ): Promise<void>;
  /** Removes a member and the member's settings; false (and nothing queued) if the user was not a member. */
  deleteMember(roomId: string, userId: string, messages?: readonly OutboxMessage[]): Promise<boolean>;
  /** Sets the owner flag; returns false if the user is not a member. */
  setOwner(roomId: string, userId: string, owner: boolean): Promise<boolean>;
  /**
   * Runs `work` while no other `withRoomLock` of the same room runs, in this process or in any
   * other process sharing the database, so a rule checked on the members (last owner, member
   * limit, the caller still an owner) still holds when the change it allows is written. Calls of
   * one room run one at a time; other rooms are not held up. Resolves with what `work` resolves.
   *
   * A store shared by processes (PostgreSQL) runs `work` in one transaction that first locks the
   * room's row, and commits when `work` resolves or rolls back when it throws. A store only one
   * process opens (SQLite in exclusive mode, memory) locks in this process and writes at once, so
   * `work` must do every check before its first write. Keep `work` to reads and writes through the
   * {@link LockedRoom}: other calls on the store may wait for the lock, and a nested `withRoomLock`
   * of the same room never starts.
   * @throws ChatError `room_not_found` when the room does not exist (before `work` runs), or what `work` throws
   */
  withRoomLock<T>(roomId: string, work: (locked: LockedRoom) => Promise<T>): Promise<T>;

  getSettings(roomId: string, userId: string): Promise<RoomUserSettingsRecord | undefined>;
  /** Sets `muted`, creating the settings row if needed; returns whether the value changed. */
  setMuted(roomId: string, userId: string, muted: boolean): Promise<boolean>;
  /** Sets `clearedAt`, creating the settings row if needed. @throws ChatError `room_not_found` */
  setClearedAt(roomId: string, userId: string, clearedAt: Date): Promise<void>;

  getPicture(roomId: string): Promise<PictureRecord | undefined>;
  /**
   * Sets the room's picture and its `pictureUpdatedAt` and `updatedAt`; queues the replaced blob.
   * @throws ChatError `room_not_found`
   */
  setPicture(picture: PictureRecord, messages?: readonly OutboxMessage[]): Promise<void>;
  /** Removes the picture, clears `pictureUpdatedAt`, sets `updatedAt`; false (and nothing queued) if there was none. */
  deletePicture(roomId: string, updatedAt: Date, messages?: readonly OutboxMessage[]): Promise<boolean>;

  /** @throws ChatError `room_not_found` */
  insertAttachment(attachment: AttachmentRecord, messages?: readonly OutboxMessage[]): Promise<void>;
  getAttachment(attachmentId: string): Promise<AttachmentRecord | undefined>;
  /** Newest first (createdAt, then id, descending), strictly after `after` when given. */
  listAttachments(
    roomId: string,
    page: { limit: number; after?: AttachmentCursor },
  ): Promise<AttachmentRecord[]>;
  /** Removes the metadata and queues its blob; false if absent. */
  deleteAttachment(attachmentId: string): Promise<boolean>;

  /**
   * Of `blobKeys`, those an attachment or a room picture points at now (for the sweep of blobs left
   * without metadata by a crash).
   */
  findReferencedBlobKeys(blobKeys: readonly string[]): Promise<string[]>;
  /** Blob keys whose metadata is gone but whose bytes may still exist, oldest first. */
  listPendingBlobDeletions(limit: number): Promise<string[]>;
  /** Forgets blob keys once their bytes are deleted. */
  forgetPendingBlobDeletions(blobKeys: readonly string[]): Promise<void>;

  /** Releases connections; idempotent. */
  close(): Promise<void>;
}
