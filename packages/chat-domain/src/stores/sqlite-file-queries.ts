import type { Database, Statement } from 'better-sqlite3';
import type { AttachmentRecord, PictureRecord } from '../model.js';
import type { OutboxMessage } from '../ports/mirror-outbox.js';
import {
  type AttachmentRow,
  attachmentFromRow,
  type FileQueries,
  type PictureRow,
  pictureFromRow,
} from './sql-rows.js';
import { queueSqliteOutboxMessages } from './sqlite-mirror-outbox.js';

/** What the SQLite query modules share: the database and its statement cache. */
export interface SqliteContext {
  database: Database;
  sql(text: string): Statement;
  /** Records that the bytes under `blobKey` must be deleted; call inside the transaction removing its metadata. */
  queueBlob(blobKey: string): void;
  /** Rethrows a SQLite error as the ChatError it means. */
  translate(error: unknown, roomId: string, userId?: string): never;
}

/** Picture, attachment and pending-deletion queries of the SQLite store. */
export function createSqliteFileQueries({ database, sql, queueBlob, translate }: SqliteContext): FileQueries {
  const queueMessages = (messages: readonly OutboxMessage[] | undefined) =>
    queueSqliteOutboxMessages(sql, messages);
  const setPicture = database.transaction((picture: PictureRecord, messages?: readonly OutboxMessage[]) => {
    const previous = sql('SELECT blob_key FROM chat_room_pictures WHERE room_id = ?').get(picture.roomId) as
      | { blob_key: string }
      | undefined;
    if (previous && previous.blob_key !== picture.blobKey) queueBlob(previous.blob_key);
    sql(
      `INSERT INTO chat_room_pictures (room_id, blob_key, name, mime_type, size, user_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (room_id) DO UPDATE SET blob_key = excluded.blob_key, name = excluded.name, mime_type = excluded.mime_type,
         size = excluded.size, user_id = excluded.user_id, updated_at = excluded.updated_at`,
    ).run(
      picture.roomId,
      picture.blobKey,
      picture.name,
      picture.mimeType,
      picture.size,
      picture.userId,
      picture.updatedAt.getTime(),
    );
    const at = picture.updatedAt.getTime();
    sql('UPDATE chat_rooms SET picture_updated_at = ?, updated_at = ? WHERE id = ?').run(
      at,
      at,
      picture.roomId,
    );
    queueMessages(messages);
  });
  const deletePicture = database.transaction(
    (roomId: string, updatedAt: Date, messages?: readonly OutboxMessage[]) => {
      const previous = sql('SELECT blob_key FROM chat_room_pictures WHERE room_id = ?').get(roomId) as
        | { blob_key: string }
        | undefined;
      if (previous === undefined) return false;
      queueBlob(previous.blob_key);
      sql('DELETE FROM chat_room_pictures WHERE room_id = ?').run(roomId);
      sql('UPDATE chat_rooms SET picture_updated_at = NULL, updated_at = ? WHERE id = ?').run(
        updatedAt.getTime(),
        roomId,
      );
      queueMessages(messages);
      return true;
    },
  );
  const insertAttachment = database.transaction(
    (attachment: AttachmentRecord, messages?: readonly OutboxMessage[]) => {
      sql(
        `INSERT INTO chat_attachments (id, room_id, user_id, name, mime_type, size, area, blob_key, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        attachment.id,
        attachment.roomId,
        attachment.userId,
        attachment.name,
        attachment.mimeType,
        attachment.size,
        attachment.area,
        attachment.blobKey,
        attachment.createdAt.getTime(),
      );
      queueMessages(messages);
    },
  );
  const deleteAttachment = database.transaction((attachmentId: string) => {
    const row = sql('SELECT blob_key FROM chat_attachments WHERE id = ?').get(attachmentId) as
      | { blob_key: string }
      | undefined;
    if (row === undefined) return false;
    queueBlob(row.blob_key);
    sql('DELETE FROM chat_attachments WHERE id = ?').run(attachmentId);
    return true;
  });

  return {
    async getPicture(roomId) {
      const row = sql('SELECT * FROM chat_room_pictures WHERE room_id = ?').get(roomId) as
        | PictureRow
        | undefined;
      return row && pictureFromRow(row);
    },
    async setPicture(picture, messages) {
      try {
        setPicture(picture, messages);
      } catch (error) {
        translate(error, picture.roomId);
      }
    },
    async deletePicture(roomId, updatedAt, messages) {
      return deletePicture(roomId, updatedAt, messages);
    },
    async insertAttachment(attachment, messages) {
      try {
        insertAttachment(attachment, messages);
      } catch (error) {
        translate(error, attachment.roomId);
      }
    },
    async getAttachment(attachmentId) {
      const row = sql('SELECT * FROM chat_attachments WHERE id = ?').get(attachmentId) as
        | AttachmentRow
        | undefined;
      return row && attachmentFromRow(row);
    },
    async listAttachments(roomId, page) {
      const rows = page.after
        ? sql(
            `SELECT * FROM chat_attachments WHERE room_id = ? AND (created_at < ? OR (created_at = ? AND id < ?))
             ORDER BY created_at DESC, id DESC LIMIT ?`,
          ).all(
            roomId,
            page.after.createdAt.getTime(),
            page.after.createdAt.getTime(),
            page.after.id,
            page.limit,
          )
        : sql(
            'SELECT * FROM chat_attachments WHERE room_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
          ).all(roomId, page.limit);
      return (rows as AttachmentRow[]).map(attachmentFromRow);
    },
    async deleteAttachment(attachmentId) {
      return deleteAttachment(attachmentId);
    },
    async findReferencedBlobKeys(blobKeys) {
      const found: string[] = [];
      const inAttachments = sql('SELECT 1 FROM chat_attachments WHERE blob_key = ?');
      const inPictures = sql('SELECT 1 FROM chat_room_pictures WHERE blob_key = ?');
      for (const key of blobKeys) {
        if (inAttachments.get(key) !== undefined || inPictures.get(key) !== undefined) found.push(key);
      }
      return found;
    },
    async listPendingBlobDeletions(limit) {
      const rows = sql(
        'SELECT blob_key FROM chat_pending_blob_deletions ORDER BY queued_at, blob_key LIMIT ?',
      ).all(limit);
      return (rows as { blob_key: string }[]).map((row) => row.blob_key);
    },
    async forgetPendingBlobDeletions(blobKeys) {
      const forget = database.transaction((keys: readonly string[]) => {
        for (const key of keys) sql('DELETE FROM chat_pending_blob_deletions WHERE blob_key = ?').run(key);
      });
      forget(blobKeys);
    },
  };
}
