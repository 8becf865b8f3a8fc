import type { AttachmentRecord, MemberRecord, PictureRecord, RoomRecord, RoomType } from '../model.js';
import type { ChatStore } from '../ports/chat-store.js';

/** A date column as SQLite (milliseconds) or PostgreSQL (Date) returns it. */
export type DateColumn = number | Date;

const toDate = (value: DateColumn) => (value instanceof Date ? value : new Date(value));
const toNullableDate = (value: DateColumn | null) => (value === null ? null : toDate(value));

/** A `chat_rooms` row. */
export interface RoomRow {
  id: string;
  type: string;
  name: string;
  description: string;
  meeting_id: string | null;
  picture_updated_at: DateColumn | null;
  created_at: DateColumn;
  updated_at: DateColumn;
}

/** Maps a `chat_rooms` row. */
export function roomFromRow(row: RoomRow): RoomRecord {
  return {
    id: row.id,
    type: row.type as RoomType,
    name: row.name,
    description: row.description,
    meetingId: row.meeting_id,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    pictureUpdatedAt: toNullableDate(row.picture_updated_at),
  };
}

/** A `chat_room_members` row. */
export interface MemberRow {
  room_id?: string;
  user_id: string;
  owner: number | boolean;
  joined_at: DateColumn;
}

/** Maps a `chat_room_members` row. */
export function memberFromRow(row: MemberRow): MemberRecord {
  return { userId: row.user_id, owner: Boolean(row.owner), joinedAt: toDate(row.joined_at) };
}

/** A `chat_room_user_settings` row. */
export interface SettingsRow {
  muted: number | boolean;
  cleared_at: DateColumn | null;
}

/** Maps a `chat_room_user_settings` row. */
export function settingsFromRow(row: SettingsRow) {
  return { muted: Boolean(row.muted), clearedAt: toNullableDate(row.cleared_at) };
}

/** A `chat_room_pictures` row. */
export interface PictureRow {
  room_id: string;
  blob_key: string;
  name: string;
  mime_type: string;
  size: number | string;
  user_id: string;
  updated_at: DateColumn;
}

/** Maps a `chat_room_pictures` row. */
export function pictureFromRow(row: PictureRow): PictureRecord {
  return {
    roomId: row.room_id,
    blobKey: row.blob_key,
    name: row.name,
    mimeType: row.mime_type,
    size: Number(row.size),
    userId: row.user_id,
    updatedAt: toDate(row.updated_at),
  };
}

/** A `chat_attachments` row. */
export interface AttachmentRow {
  id: string;
  room_id: string;
  user_id: string;
  name: string;
  mime_type: string;
  size: number | string;
  area: string | null;
  blob_key: string;
  created_at: DateColumn;
}

/** Maps a `chat_attachments` row. */
export function attachmentFromRow(row: AttachmentRow): AttachmentRecord {
  return {
    id: row.id,
    roomId: row.room_id,
    userId: row.user_id,
    name: row.name,
    mimeType: row.mime_type,
    size: Number(row.size),
    area: row.area,
    blobKey: row.blob_key,
    createdAt: toDate(row.created_at),
  };
}

/** The operations of {@link ChatStore} on pictures, attachments and pending blob deletions. */
export type FileQueries = Pick<
  ChatStore,
  | 'getPicture'
  | 'setPicture'
  | 'deletePicture'
  | 'insertAttachment'
  | 'getAttachment'
  | 'listAttachments'
  | 'deleteAttachment'
  | 'findReferencedBlobKeys'
  | 'listPendingBlobDeletions'
  | 'forgetPendingBlobDeletions'
>;
