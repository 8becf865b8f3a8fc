import type { Pool, PoolClient } from 'pg';
import { queueMessagesSql, queuePostgresOutboxMessages } from './postgres-mirror-outbox.js';
import {
  type AttachmentRow,
  attachmentFromRow,
  type FileQueries,
  type PictureRow,
  pictureFromRow,
} from './sql-rows.js';

/** Queues the blob keys of `$1` (text[]) for deletion. */
export const queueBlobsSql =
  'INSERT INTO chat_pending_blob_deletions (blob_key) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING';

/**
 * Inserts an attachment's row and queues its messages in one statement (one round trip, atomic):
 * the messages only when the row went in.
 */
const insertAttachmentSql = `WITH inserted AS (
     INSERT INTO chat_attachments (id, room_id, user_id, name, mime_type, size, area, blob_key, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id)
   ${queueMessagesSql('$10', 'inserted')}`;

/** What the PostgreSQL query modules share. */
export interface PostgresContext {
  pool: Pool;
  rows<T>(text: string, values: unknown[]): Promise<T[]>;
  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T>;
  /** Rethrows a PostgreSQL error as the ChatError it means. */
  translate(error: unknown, roomId: string, userId?: string): never;
}

/** Picture, attachment and pending-deletion queries of the PostgreSQL store. */
export function createPostgresFileQueries({
  pool,
  rows,
  transaction,
  translate,
}: PostgresContext): FileQueries {
  return {
    async getPicture(roomId) {
      const [row] = await rows<PictureRow>('SELECT * FROM chat_room_pictures WHERE room_id = $1', [roomId]);
      return row && pictureFromRow(row);
    },
    async setPicture(picture, messages) {
      try {
        await transaction(async (client) => {
          await client.query(
            `INSERT INTO chat_pending_blob_deletions (blob_key)
             SELECT blob_key FROM chat_room_pictures WHERE room_id = $1 AND blob_key <> $2 ON CONFLICT DO NOTHING`,
            [picture.roomId, picture.blobKey],
          );
          await client.query(
            `INSERT INTO chat_room_pictures (room_id, blob_key, name, mime_type, size, user_id, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (room_id) DO UPDATE SET blob_key = $2, name = $3, mime_type = $4, size = $5, user_id = $6, updated_at = $7`,
            [
              picture.roomId,
              picture.blobKey,
              picture.name,
              picture.mimeType,
              picture.size,
              picture.userId,
              picture.updatedAt,
            ],
          );
          await client.query('UPDATE chat_rooms SET picture_updated_at = $2, updated_at = $2 WHERE id = $1', [
            picture.roomId,
            picture.updatedAt,
          ]);
          await queuePostgresOutboxMessages(client, messages);
        });
      } catch (error) {
        translate(error, picture.roomId);
      }
    },
    async deletePicture(roomId, updatedAt, messages) {
      return transaction(async (client) => {
        const deleted = await client.query<{ blob_key: string }>(
          'DELETE FROM chat_room_pictures WHERE room_id = $1 RETURNING blob_key',
          [roomId],
        );
        if (deleted.rows.length === 0) return false;
        await client.query(queueBlobsSql, [deleted.rows.map((row) => row.blob_key)]);
        await client.query('UPDATE chat_rooms SET picture_updated_at = NULL, updated_at = $2 WHERE id = $1', [
          roomId,
          updatedAt,
        ]);
        await queuePostgresOutboxMessages(client, messages);
        return true;
      });
    },
    async insertAttachment(attachment, messages) {
      try {
        await pool.query(insertAttachmentSql, [
          attachment.id,
          attachment.roomId,
          attachment.userId,
          attachment.name,
          attachment.mimeType,
          attachment.size,
          attachment.area,
          attachment.blobKey,
          attachment.createdAt,
          JSON.stringify(messages ?? []),
        ]);
      } catch (error) {
        translate(error, attachment.roomId);
      }
    },
    async getAttachment(attachmentId) {
      const [row] = await rows<AttachmentRow>('SELECT * FROM chat_attachments WHERE id = $1', [attachmentId]);
      return row && attachmentFromRow(row);
    },
    async listAttachments(roomId, page) {
      const found = page.after
        ? await rows<AttachmentRow>(
            `SELECT * FROM chat_attachments WHERE room_id = $1 AND (created_at, id) < ($2, $3)
             ORDER BY created_at DESC, id DESC LIMIT $4`,
            [roomId, page.after.createdAt, page.after.id, page.limit],
          )
        : await rows<AttachmentRow>(
            'SELECT * FROM chat_attachments WHERE room_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
            [roomId, page.limit],
          );
      return found.map(attachmentFromRow);
    },
    async deleteAttachment(attachmentId) {
      return transaction(async (client) => {
        const deleted = await client.query<{ blob_key: string }>(
          'DELETE FROM chat_attachments WHERE id = $1 RETURNING blob_key',
          [attachmentId],
        );
        if (deleted.rows.length === 0) return false;
        await client.query(queueBlobsSql, [deleted.rows.map((row) => row.blob_key)]);
        return true;
      });
    },
    async findReferencedBlobKeys(blobKeys) {
      const found = await rows<{ blob_key: string }>(
        `SELECT blob_key FROM chat_attachments WHERE blob_key = ANY($1::text[])
         UNION SELECT blob_key FROM chat_room_pictures WHERE blob_key = ANY($1::text[])`,
        [blobKeys],
      );
      return found.map((row) => row.blob_key);
    },
    async listPendingBlobDeletions(limit) {
      const found = await rows<{ blob_key: string }>(
        'SELECT blob_key FROM chat_pending_blob_deletions ORDER BY queued_at, blob_key LIMIT $1',
        [limit],
      );
      return found.map((row) => row.blob_key);
    },
    async forgetPendingBlobDeletions(blobKeys) {
      await pool.query('DELETE FROM chat_pending_blob_deletions WHERE blob_key = ANY($1::text[])', [
        blobKeys,
      ]);
    },
  };
}
