import type { AttachmentRecord, MemberRecord, RoomRecord } from '../model.js';
import type { AttachmentCursor } from '../ports/chat-store.js';

/** Rooms by creation, then id. */
export function compareRoomsOldestFirst(left: RoomRecord, right: RoomRecord): number {
  const byDate = left.createdAt.getTime() - right.createdAt.getTime();
  return byDate !== 0 ? byDate : left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
}

/** Attachments newest first: createdAt descending, then id descending. */
export function compareAttachmentsNewestFirst(left: AttachmentRecord, right: AttachmentRecord): number {
  const byDate = right.createdAt.getTime() - left.createdAt.getTime();
  return byDate !== 0 ? byDate : left.id < right.id ? 1 : left.id > right.id ? -1 : 0;
}

/** Whether `attachment` comes strictly after `cursor` in newest-first order. */
export function isAfterCursor(attachment: AttachmentRecord, cursor: AttachmentCursor | undefined): boolean {
  if (cursor === undefined) return true;
  const time = attachment.createdAt.getTime();
  const cursorTime = cursor.createdAt.getTime();
  return time < cursorTime || (time === cursorTime && attachment.id < cursor.id);
}

/** Members in join order; owners first among members who joined together, then by id. */
export function compareMembersInJoinOrder(left: MemberRecord, right: MemberRecord): number {
  const byDate = left.joinedAt.getTime() - right.joinedAt.getTime();
  if (byDate !== 0) return byDate;
  if (left.owner !== right.owner) return left.owner ? -1 : 1;
  return left.userId < right.userId ? -1 : left.userId > right.userId ? 1 : 0;
}
