import type pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { loadDriver } from '../drivers.js';
import type { Member, RoomListing } from '../model.js';
import { refuseUnknownOptions } from '../option-schemas.js';
import type { ChatStore } from '../ports/chat-store.js';
import type { MeetingCoordination } from '../ports/meeting-coordination.js';
import { roomColumns, throwConstraintViolation } from './constraint-violations.js';
import { createPostgresFileQueries, type PostgresContext } from './postgres-file-queries.js';
import { createPostgresMeetingCoordination } from './postgres-meeting-coordination.js';
import { createPostgresMeetingQueries } from './postgres-meeting-queries.js';
import { createPostgresMemberQueries, insertMemberRow, upsertSettings } from './postgres-member-queries.js';
import { createPostgresMirrorListener, mirrorListenerApplicationName } from './postgres-mirror-listener.js';
import { createPostgresMirrorOutbox, queuePostgresOutboxMessages } from './postgres-mirror-outbox.js';
import {
  connectionOf,
  inTransaction,
  poolConfig,
  survivePostgresErrors,
  withOwnClient,
} from './postgres-pool.js';
import { migratePostgres } from './postgres-schema.js';
import { guardPostgresAvailability } from './postgres-unavailable.js';
import { type RoomRow, roomFromRow, type SettingsRow, settingsFromRow } from './sql-rows.js';

/** Options of {@link openPostgresChatStore}: a connection string, or a pool the caller owns. */
export type PostgresChatStoreOptions =
  | {
      connectionString: string;
      /** Most connections the store opens. @default 10 */
      maxConnections?: number;
      /**
       * Longest wait for a connection (a new one, or a free one of the pool), in milliseconds: while
       * PostgreSQL is away, calls fail with `dependency_unavailable` after at most this long.
       * @default 2000
       */
      connectionTimeoutMs?: number;
      /**
       * Longest wait for the answer to one statement, in milliseconds (a connection that went silent,
       * a lock held too long); past it the call fails with `dependency_unavailable`. 0: no limit.
       * @default 10000
       */
      queryTimeoutMs?: number;
    }
  | { pool: Pool };

/** The connections of a store's pg pool now, for monitoring. */
export interface PostgresPoolStats {
  /** Connections open, idle or in use. */
  total: number;
  /** Open connections not in use. */
  idle: number;
  /** Queries and transactions waiting for a connection. */
  waiting: number;
}

/**
 * A {@link ChatStore} on PostgreSQL, which also reports its connection pool and coordinates the
 * meetings of several API nodes ({@link MeetingCoordination}).
 */
export interface PostgresChatStore extends ChatStore, MeetingCoordination {
  /** The pool's connections now (the caller's pool when one was given). */
  poolStats(): PostgresPoolStats;
}

function translatePostgresError(error: unknown, roomId: string, userId?: string): never {
  const code = (error as { code?: string }).code;
  // 23503 foreign key, 23505 unique: a duplicate member when a user is involved, else the one_to_one key.
  const violation =
    code === '23503'
      ? 'missing_room'
      : code === '23505'
        ? userId !== undefined
          ? 'duplicate_key'
          : 'duplicate_one_to_one'
        : undefined;
  return throwConstraintViolation(violation, error, roomId, userId);
}

/**
 * Opens a {@link ChatStore} on PostgreSQL (pg) and applies pending schema migrations. Ids must be
 * UUIDs. A store opened with a connection string closes its pool on `close()`. While an XMPP mirror
 * drains it, the store holds one more connection, outside the pool, that LISTENs for the outbox's
 * notices (`onMirrorOperationsQueued`); `close()` closes it. A lost connection never ends the
 * process (the store listens to the pool's errors, a caller's pool too): while PostgreSQL is away
 * calls fail fast, and they work again once it is back, without reopening the store.
 * @throws ChatError `dependency_unavailable` from any call while PostgreSQL is away (refused or lost
 * connections, a server shutting down or starting, no connection or answer in time)
 */
export async function openPostgresChatStore(options: PostgresChatStoreOptions): Promise<PostgresChatStore> {
  refuseUnknownOptions(
    options,
    'pool' in options
      ? ['pool']
      : ['connectionString', 'maxConnections', 'connectionTimeoutMs', 'queryTimeoutMs'],
    'openPostgresChatStore',
  );
  const driver = loadDriver<typeof pg>('pg');
  const ownsPool = !('pool' in options);
  const pool: Pool = 'pool' in options ? options.pool : new driver.Pool(poolConfig(options));
  survivePostgresErrors(pool);
  const connection = connectionOf(pool);
  try {
    await withOwnClient(connection, migratePostgres);
    // The pool's first connection, ready for the first call.
    await pool.query('SELECT 1');
  } catch (error) {
    if (ownsPool) await pool.end().catch(() => {});
    throw error;
  }

  const transaction = <T>(work: (client: PoolClient) => Promise<T>): Promise<T> => inTransaction(pool, work);
  const rows = async <T>(text: string, values: unknown[]): Promise<T[]> =>
    (await pool.query({ text, values })).rows as T[];
  const getRoomRow = async (roomId: string) =>
    (await rows<RoomRow>(`SELECT ${roomColumns} FROM chat_rooms r WHERE r.id = $1`, [roomId]))[0];

  const context: PostgresContext = { pool, rows, transaction, translate: translatePostgresError };
  const mirrorListener = createPostgresMirrorListener({
    newClient: () => new driver.Client({ ...connection, application_name: mirrorListenerApplicationName }),
  });
  let closed = false;
  return guardPostgresAvailability<PostgresChatStore>({
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    ...createPostgresFileQueries(context),
    ...createPostgresMeetingQueries(context),
    ...createPostgresMeetingCoordination(context),
    ...createPostgresMemberQueries(context),
    ...createPostgresMirrorOutbox(context),
    // A connection of its own, outside the pool, LISTENs while a mirror drains this store.
    onMirrorOperationsQueued: (listener) => mirrorListener.subscribe(listener),
    async insertRoom(room, members, oneToOneKey, messages) {
      try {
        await transaction(async (client) => {
          await client.query(
            `INSERT INTO chat_rooms (id, type, name, description, one_to_one_key, meeting_id, picture_updated_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
            [
              room.id,
              room.type,
              room.name,
              room.description,
              oneToOneKey ?? null,
              room.meetingId,
              room.pictureUpdatedAt,
              room.createdAt,
              room.updatedAt,
            ],
          );
          for (const member of members) await insertMemberRow(client, room.id, member);
          await queuePostgresOutboxMessages(client, messages);
        });
      } catch (error) {
        translatePostgresError(error, room.id);
      }
    },
    async getRoom(roomId) {
      const row = await getRoomRow(roomId);
      return row && roomFromRow(row);
    },
    async findOneToOneRoom(key) {
      const [row] = await rows<RoomRow>(
        `SELECT ${roomColumns} FROM chat_rooms r WHERE r.one_to_one_key = $1`,
        [key],
      );
      return row && roomFromRow(row);
    },
    async countRoomsOfUser(userId) {
      const [row] = await rows<{ count: string }>(
        'SELECT COUNT(*) AS count FROM chat_room_members WHERE user_id = $1',
        [userId],
      );
      return Number(row?.count ?? 0);
    },
    async listRoomsOfUser(userId, include, page) {
      // Members come aggregated as JSON (one row per room, in join order) rather than one row each.
      const membersColumn = include.members
        ? `, COALESCE((SELECT json_agg(json_build_object('userId', a.user_id, 'owner', a.owner)
             ORDER BY a.joined_at, a.owner DESC, a.user_id) FROM chat_room_members a WHERE a.room_id = r.id), '[]') AS members`
        : '';
      const after = page?.after;
      const pageCondition = after ? ' AND (r.created_at, r.id) > ($3::timestamptz, $4::uuid)' : '';
      const pageLimit = page ? ' LIMIT $2' : '';
      const pageParameters: unknown[] = page
        ? [userId, page.limit, ...(after ? [after.createdAt, after.id] : [])]
        : [userId];
      const roomRows = await rows<
        RoomRow & {
          s_muted: boolean | null;
          s_cleared_at: Date | null;
          s_user_id: string | null;
          members?: Member[];
        }
      >(
        `SELECT ${roomColumns}, s.muted AS s_muted, s.cleared_at AS s_cleared_at, s.user_id AS s_user_id${membersColumn}
         FROM chat_room_members m JOIN chat_rooms r ON r.id = m.room_id
         LEFT JOIN chat_room_user_settings s ON s.room_id = m.room_id AND s.user_id = m.user_id
         WHERE m.user_id = $1${pageCondition} ORDER BY r.created_at, r.id${pageLimit}`,
        pageParameters,
      );
      return roomRows.map((row) => {
        const listing: RoomListing = { room: roomFromRow(row) };
        if (include.members) listing.members = row.members ?? [];
        if (include.settings) {
          listing.settings =
            row.s_user_id === null
              ? null
              : settingsFromRow({ muted: row.s_muted ?? false, cleared_at: row.s_cleared_at });
        }
        return listing;
      });
    },
    async updateRoom(roomId, changes, messages) {
      const update = async (database: Pool | PoolClient) => {
        const result = await database.query<RoomRow>(
          `UPDATE chat_rooms r SET name = COALESCE($2, r.name), description = COALESCE($3, r.description), updated_at = $4
           WHERE r.id = $1 RETURNING ${roomColumns}`,
          [roomId, changes.name ?? null, changes.description ?? null, changes.updatedAt],
        );
        return result.rows[0];
      };
      const row =
        messages === undefined || messages.length === 0
          ? await update(pool)
          : await transaction(async (client) => {
              const updated = await update(client);
              if (updated) await queuePostgresOutboxMessages(client, messages);
              return updated;
            });
      return row && roomFromRow(row);
    },
    async getSettings(roomId, userId) {
      const [row] = await rows<SettingsRow>(
        'SELECT muted, cleared_at FROM chat_room_user_settings WHERE room_id = $1 AND user_id = $2',
        [roomId, userId],
      );
      return row && settingsFromRow(row);
    },
    async setMuted(roomId, userId, muted) {
      try {
        const result = await pool.query(
          `INSERT INTO chat_room_user_settings (room_id, user_id, muted) SELECT $1, $2, $3 WHERE $3
           ON CONFLICT (room_id, user_id) DO UPDATE SET muted = $3 WHERE chat_room_user_settings.muted <> $3`,
          [roomId, userId, muted],
        );
        if (muted) return (result.rowCount ?? 0) > 0;
        const unmuted = await pool.query(
          'UPDATE chat_room_user_settings SET muted = false WHERE room_id = $1 AND user_id = $2 AND muted',
          [roomId, userId],
        );
        return (unmuted.rowCount ?? 0) > 0;
      } catch (error) {
        translatePostgresError(error, roomId);
      }
    },
    async setClearedAt(roomId, userId, clearedAt) {
      try {
        await upsertSettings(pool, roomId, userId, { clearedAt });
      } catch (error) {
        translatePostgresError(error, roomId);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await mirrorListener.close();
      if (ownsPool) await pool.end();
    },
  });
}
