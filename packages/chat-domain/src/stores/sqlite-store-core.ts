import type BetterSqlite3 from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
import { loadDriver } from '../drivers.js';
import type { MemberRecord, RoomListing, RoomRecord, RoomUserSettingsRecord } from '../model.js';
import type { RoomChanges, RoomPage } from '../ports/chat-store.js';
import type { OutboxMessage } from '../ports/mirror-outbox.js';
import { type ConstraintViolation, roomColumns, throwConstraintViolation } from './constraint-violations.js';
import type { ChatStoreWithoutRoomLock } from './in-process-room-lock.js';
import {
  type MemberRow,
  memberFromRow,
  type RoomRow,
  roomFromRow,
  type SettingsRow,
  settingsFromRow,
} from './sql-rows.js';
import { createSqliteFileQueries } from './sqlite-file-queries.js';
import { createSqliteMeetingQueries } from './sqlite-meeting-queries.js';
import { createSqliteMemberLists } from './sqlite-member-lists.js';
import { createSqliteMirrorOutbox, queueSqliteOutboxMessages } from './sqlite-mirror-outbox.js';
import { migrateSqlite } from './sqlite-schema.js';

function translateSqliteError(error: unknown, roomId: string, userId?: string): never {
  const violations: Record<string, ConstraintViolation> = {
    SQLITE_CONSTRAINT_FOREIGNKEY: 'missing_room',
    SQLITE_CONSTRAINT_PRIMARYKEY: 'duplicate_key',
    SQLITE_CONSTRAINT_UNIQUE: 'duplicate_one_to_one',
  };
  return throwConstraintViolation(violations[(error as { code?: string }).code ?? ''], error, roomId, userId);
}

type ListingRow = RoomRow & {
  s_muted: number | null;
  s_cleared_at: number | null;
  s_user_id: string | null;
};

/** The columns of the listing query, in order. */
const listingColumns = [
  'id',
  'type',
  'name',
  'description',
  'meeting_id',
  'picture_updated_at',
  'created_at',
  'updated_at',
  's_muted',
  's_cleared_at',
  's_user_id',
] as const;

/**
 * A listing row from the array a `.raw()` statement gives. better-sqlite3 builds row objects from
 * C++ at about 2.5 µs a row; arrays and an object literal here take a third of that for 200 rooms.
 */
function listingRowOf(columns: unknown[]): ListingRow {
  const [id, type, name, description, meeting_id, picture_updated_at, created_at, updated_at] = columns as [
    string,
    string,
    string,
    string,
    string | null,
    number | null,
    number,
    number,
  ];
  const [s_muted, s_cleared_at, s_user_id] = columns.slice(8) as [
    number | null,
    number | null,
    string | null,
  ];
  return {
    id,
    type,
    name,
    description,
    meeting_id,
    picture_updated_at,
    created_at,
    updated_at,
    s_muted,
    s_cleared_at,
    s_user_id,
  };
}

/**
 * How a connection shares its file. `exclusive`: the one connection of the one process using the
 * file (SQLite's exclusive locking mode: cheaper commits, and any other connection is refused).
 * `reader` and `writer`: two connections of one process, on its main thread and on a writer thread
 * (normal locking mode, so both can use the WAL at once); the reader applies pending migrations.
 */
export type SqliteConnectionRole = 'exclusive' | 'reader' | 'writer';

/** A store on one SQLite connection, with the hook that keeps its member cache right. */
export interface SqliteStoreCore {
  store: ChatStoreWithoutRoomLock;
  /** Drops the cached member list of `roomId`; call after another connection changed its members. */
  forgetMembers(roomId: string): void;
}

/**
 * Opens `filename` (or `:memory:`, only as `exclusive`) as a store whose methods run synchronously
 * on the calling thread: better-sqlite3, WAL, foreign keys on, member lists cached in memory.
 */
export function openSqliteStoreCore(filename: string, role: SqliteConnectionRole): SqliteStoreCore {
  const Sqlite = loadDriver<typeof BetterSqlite3>('better-sqlite3');
  const database: Database = new Sqlite(filename);
  // Exclusive: one connection owns the file, so no other can change members behind the cache. Shared
  // (reader and writer): the writer's changes reach the reader's cache through `forgetMembers`.
  if (role === 'exclusive') database.pragma('locking_mode = EXCLUSIVE');
  if (filename !== ':memory:') database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  // Checkpoints (which fsync) run on the connection that commits, right after a commit. On the
  // calling thread: every ~40 MB of WAL rather than SQLite's ~4 MB, as pages written many times
  // between checkpoints are copied once, which halves the cost of small write transactions. On the
  // writer thread, which has time to spare, SQLite's ~4 MB: each checkpoint holds up the writes
  // queued behind it for a fifth as long (POST /rooms p99 7-8 ms instead of 13-18 ms, same rps).
  database.pragma(`wal_autocheckpoint = ${role === 'writer' ? 1000 : 10000}`);
  database.pragma('busy_timeout = 5000');
  // 64 MiB of page cache rather than 2 MiB: member indexes keyed by random user ids are written
  // all over; pages that stay cached are not read back from the WAL before each change.
  database.pragma('cache_size = -65536');
  if (role !== 'writer') migrateSqlite(database);

  const statements = new Map<string, Statement>();
  const sql = (text: string): Statement => {
    let statement = statements.get(text);
    if (statement === undefined) {
      statement = database.prepare(text);
      statements.set(text, statement);
    }
    return statement;
  };
  const queueBlob = (blobKey: string) =>
    sql('INSERT OR IGNORE INTO chat_pending_blob_deletions (blob_key, queued_at) VALUES (?, ?)').run(
      blobKey,
      Date.now(),
    );
  const getRoomRow = (roomId: string) =>
    sql(`SELECT ${roomColumns} FROM chat_rooms r WHERE r.id = ?`).get(roomId) as RoomRow | undefined;
  const insertMemberRow = (roomId: string, member: MemberRecord) =>
    sql('INSERT INTO chat_room_members (room_id, user_id, owner, joined_at) VALUES (?, ?, ?, ?)').run(
      roomId,
      member.userId,
      member.owner ? 1 : 0,
      member.joinedAt.getTime(),
    );
  const upsertSettings = (roomId: string, userId: string, muted: boolean, clearedAt: Date | null) =>
    sql(
      `INSERT INTO chat_room_user_settings (room_id, user_id, muted, cleared_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (room_id, user_id) DO UPDATE SET muted = excluded.muted, cleared_at = excluded.cleared_at`,
    ).run(roomId, userId, muted ? 1 : 0, clearedAt?.getTime() ?? null);
  const getSettingsRow = (roomId: string, userId: string) =>
    sql('SELECT muted, cleared_at FROM chat_room_user_settings WHERE room_id = ? AND user_id = ?').get(
      roomId,
      userId,
    ) as SettingsRow | undefined;

  const queueMessages = (messages: readonly OutboxMessage[] | undefined) =>
    queueSqliteOutboxMessages(sql, messages);
  const insertRoom = database.transaction(
    (
      room: RoomRecord,
      members: readonly MemberRecord[],
      key: string | null,
      messages: readonly OutboxMessage[] | undefined,
    ) => {
      sql(
        `INSERT INTO chat_rooms (id, type, name, description, one_to_one_key, meeting_id, picture_updated_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        room.id,
        room.type,
        room.name,
        room.description,
        key,
        room.meetingId,
        room.pictureUpdatedAt?.getTime() ?? null,
        room.createdAt.getTime(),
        room.updatedAt.getTime(),
      );
      for (const member of members) insertMemberRow(room.id, member);
      queueMessages(messages);
    },
  );
  const updateRoom = database.transaction(
    (roomId: string, changes: RoomChanges, messages: readonly OutboxMessage[] | undefined) => {
      const current = getRoomRow(roomId);
      if (current === undefined) return undefined;
      sql('UPDATE chat_rooms SET name = ?, description = ?, updated_at = ? WHERE id = ?').run(
        changes.name ?? current.name,
        changes.description ?? current.description,
        changes.updatedAt.getTime(),
        roomId,
      );
      queueMessages(messages);
      return getRoomRow(roomId);
    },
  );
  const deleteRoom = database.transaction((roomId: string) => {
    const blobs = sql(
      `SELECT blob_key FROM chat_attachments WHERE room_id = ? UNION SELECT blob_key FROM chat_room_pictures WHERE room_id = ?`,
    ).all(roomId, roomId) as { blob_key: string }[];
    for (const row of blobs) queueBlob(row.blob_key);
    return sql('DELETE FROM chat_rooms WHERE id = ?').run(roomId).changes > 0;
  });
  const insertMember = database.transaction(
    (
      roomId: string,
      member: MemberRecord,
      settings: RoomUserSettingsRecord | undefined,
      messages: readonly OutboxMessage[] | undefined,
    ) => {
      insertMemberRow(roomId, member);
      if (settings) upsertSettings(roomId, member.userId, settings.muted, settings.clearedAt);
      queueMessages(messages);
    },
  );
  const deleteMember = database.transaction(
    (roomId: string, userId: string, messages: readonly OutboxMessage[] | undefined) => {
      sql('DELETE FROM chat_room_user_settings WHERE room_id = ? AND user_id = ?').run(roomId, userId);
      const deleted =
        sql('DELETE FROM chat_room_members WHERE room_id = ? AND user_id = ?').run(roomId, userId).changes >
        0;
      if (deleted) queueMessages(messages);
      return deleted;
    },
  );
  const setMuted = database.transaction((roomId: string, userId: string, muted: boolean) => {
    const current = getSettingsRow(roomId, userId);
    if (Boolean(current?.muted) === muted) return false;
    upsertSettings(roomId, userId, muted, current ? settingsFromRow(current).clearedAt : null);
    return true;
  });
  const setClearedAt = database.transaction((roomId: string, userId: string, clearedAt: Date) => {
    const current = getSettingsRow(roomId, userId);
    upsertSettings(roomId, userId, Boolean(current?.muted), clearedAt);
  });
  const memberLists = createSqliteMemberLists(database);
  const forgetMembers = (roomId: string) => memberLists.forget(roomId);
  /** A listing statement (rows as arrays, checked against the columns `listingRowOf` reads). */
  const prepareListing = (condition: string, limit: string) => {
    const statement = database.prepare(
      `SELECT ${roomColumns}, s.muted AS s_muted, s.cleared_at AS s_cleared_at, s.user_id AS s_user_id
       FROM chat_room_members m JOIN chat_rooms r ON r.id = m.room_id
       LEFT JOIN chat_room_user_settings s ON s.room_id = m.room_id AND s.user_id = m.user_id
       WHERE m.user_id = ?${condition} ORDER BY r.created_at, r.id${limit}`,
    );
    const names = statement.columns().map((column) => column.name);
    if (names.join() !== listingColumns.join()) {
      throw new Error(`the listing query's columns moved: ${names.join(', ')}`);
    }
    return statement.raw(true) as Statement<unknown[], unknown[]>;
  };
  const listingStatement = prepareListing('', '');
  const firstPageStatement = prepareListing('', ' LIMIT ?');
  const nextPageStatement = prepareListing(
    ' AND (r.created_at > ? OR (r.created_at = ? AND r.id > ?))',
    ' LIMIT ?',
  );
  // A row per user kept by triggers (schema version 8): one lookup, however many rooms.
  const countStatement = database.prepare('SELECT rooms FROM chat_user_room_counts WHERE user_id = ?');
  const listingRows = (userId: string, page: RoomPage | undefined) => {
    if (page === undefined) return listingStatement.all(userId);
    if (page.after === undefined) return firstPageStatement.all(userId, page.limit);
    const after = page.after.createdAt.getTime();
    return nextPageStatement.all(userId, after, after, page.after.id, page.limit);
  };

  /** Lists rooms; member lists come from the cache, read from SQLite only when one is missing. */
  const listRoomsOfUser = async (
    userId: string,
    include: { members: boolean; settings: boolean },
    page?: RoomPage,
  ): Promise<RoomListing[]> => {
    const rows = listingRows(userId, page).map(listingRowOf);
    const members = include.members ? await memberLists.of(rows.map((row) => row.id)) : undefined;
    return rows.map((row) => {
      const listing: RoomListing = { room: roomFromRow(row) };
      if (members) listing.members = members.get(row.id) ?? [];
      if (include.settings) {
        listing.settings =
          row.s_user_id === null
            ? null
            : settingsFromRow({ muted: row.s_muted ?? 0, cleared_at: row.s_cleared_at });
      }
      return listing;
    });
  };

  const files = createSqliteFileQueries({ database, sql, queueBlob, translate: translateSqliteError });
  let closed = false;
  const store: ChatStoreWithoutRoomLock = {
    ...files,
    ...createSqliteMeetingQueries({ database, sql }),
    ...createSqliteMirrorOutbox({ database, sql }),
    async insertRoom(room, members, oneToOneKey, messages) {
      try {
        insertRoom(room, members, oneToOneKey ?? null, messages);
      } catch (error) {
        translateSqliteError(error, room.id);
      }
    },
    async getRoom(roomId) {
      const row = getRoomRow(roomId);
      return row && roomFromRow(row);
    },
    async findOneToOneRoom(key) {
      const row = sql(`SELECT ${roomColumns} FROM chat_rooms r WHERE r.one_to_one_key = ?`).get(key) as
        | RoomRow
        | undefined;
      return row && roomFromRow(row);
    },
    listRoomsOfUser,
    async countRoomsOfUser(userId) {
      return (countStatement.get(userId) as { rooms: number } | undefined)?.rooms ?? 0;
    },
    async updateRoom(roomId, changes, messages) {
      const row = updateRoom(roomId, changes, messages);
      return row && roomFromRow(row);
    },
    async deleteRoom(roomId) {
      forgetMembers(roomId);
      return deleteRoom(roomId);
    },
    async getMember(roomId, userId) {
      const row = sql(
        'SELECT user_id, owner, joined_at FROM chat_room_members WHERE room_id = ? AND user_id = ?',
      ).get(roomId, userId) as MemberRow | undefined;
      return row && memberFromRow(row);
    },
    async listMembers(roomId) {
      const rows = sql(
        'SELECT user_id, owner, joined_at FROM chat_room_members WHERE room_id = ? ORDER BY joined_at, owner DESC, user_id',
      ).all(roomId) as MemberRow[];
      return rows.map(memberFromRow);
    },
    async insertMember(roomId, member, settings, messages) {
      forgetMembers(roomId);
      try {
        insertMember(roomId, member, settings, messages);
      } catch (error) {
        translateSqliteError(error, roomId, member.userId);
      }
    },
    async deleteMember(roomId, userId, messages) {
      forgetMembers(roomId);
      return deleteMember(roomId, userId, messages);
    },
    async setOwner(roomId, userId, owner) {
      forgetMembers(roomId);
      return (
        sql('UPDATE chat_room_members SET owner = ? WHERE room_id = ? AND user_id = ?').run(
          owner ? 1 : 0,
          roomId,
          userId,
        ).changes > 0
      );
    },
    async getSettings(roomId, userId) {
      const row = getSettingsRow(roomId, userId);
      return row && settingsFromRow(row);
    },
    async setMuted(roomId, userId, muted) {
      try {
        return setMuted(roomId, userId, muted);
      } catch (error) {
        translateSqliteError(error, roomId);
      }
    },
    async setClearedAt(roomId, userId, clearedAt) {
      try {
        setClearedAt(roomId, userId, clearedAt);
      } catch (error) {
        translateSqliteError(error, roomId);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      database.close();
    },
  };
  return { store, forgetMembers };
}
