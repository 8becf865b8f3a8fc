import type { MemberRecord, RoomRecord, RoomUserSettingsRecord } from '../model.js';
import type { OutboxMessage } from './mirror-outbox.js';

/**
 * One room held by {@link ChatStore.withRoomLock}: its membership read and changed while no other
 * `withRoomLock` of the same room runs, in this process or in any other sharing the database.
 * Reads see every change committed before the lock was taken and the work's own writes.
 */
export interface LockedRoom {
  /** The room as it was when the lock was taken. */
  readonly room: RoomRecord;
  getMember(userId: string): Promise<MemberRecord | undefined>;
  /** Members in the order they joined, as {@link ChatStore.listMembers}. */
  listMembers(): Promise<MemberRecord[]>;
  /** Adds a member, with settings when given. @throws ChatError `already_member` */
  insertMember(
    member: MemberRecord,
    settings?: RoomUserSettingsRecord,
    messages?: readonly OutboxMessage[],
  ): Promise<void>;
  /** Removes a member and the member's settings; false (and nothing queued) if the user was not a member. */
  deleteMember(userId: string, messages?: readonly OutboxMessage[]): Promise<boolean>;
  /** Sets the owner flag; false if the user is not a member. */
  setOwner(userId: string, owner: boolean): Promise<boolean>;
  /** Deletes the room with everything in it, as {@link ChatStore.deleteRoom}; false if already gone. */
  deleteRoom(): Promise<boolean>;
}
