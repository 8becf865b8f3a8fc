import type { Pool, PoolClient } from 'pg';
import { ChatError, roomNotFound } from '../errors.js';
import type { MemberRecord, RoomRecord, RoomUserSettingsRecord } from '../model.js';
import type { ChatStore } from '../ports/chat-store.js';
import type { LockedRoom } from '../ports/locked-room.js';
import type { OutboxMessage } from '../ports/mirror-outbox.js';
import { roomColumns } from './constraint-violations.js';
import { type PostgresContext, queueBlobsSql } from './postgres-file-queries.js';
import { queuePostgresOutboxMessages } from './postgres-mirror-outbox.js';
import { type MemberRow, memberFromRow, type RoomRow, roomFromRow } from './sql-rows.js';

/** The pool, or one client inside a transaction. */
type Queryable = Pool | PoolClient;

/** Member queries and room deletion of the PostgreSQL store, with the room lock they run under. */
export type PostgresMemberQueries = Pick<
  ChatStore,
  'deleteRoom' | 'getMember' | 'listMembers' | 'insertMember' | 'deleteMember' | 'setOwner' | 'withRoomLock'
>;

/** Inserts one member row. */
export function insertMemberRow(database: Queryable, roomId: string, member: MemberRecord) {
  return database.query(
    'INSERT INTO chat_room_members (room_id, user_id, owner, joined_at) VALUES ($1, $2, $3, $4)',
    [roomId, member.userId, member.owner, member.joinedAt],
  );
}

/** Creates or changes a settings row; absent fields keep their value (false/null when created). */
export function upsertSettings(
  database: Queryable,
  roomId: string,
  userId: string,
  change: { muted?: boolean; clearedAt?: Date },
) {
  return database.query(
    `INSERT INTO chat_room_user_settings (room_id, user_id, muted, cleared_at) VALUES ($1, $2, COALESCE($3, false), $4)
     ON CONFLICT (room_id, user_id) DO UPDATE SET muted = COALESCE($3, chat_room_user_settings.muted),
       cleared_at = COALESCE($4, chat_room_user_settings.cleared_at)`,
    [roomId, userId, change.muted ?? null, change.clearedAt ?? null],
  );
}

async function selectMember(database: Queryable, roomId: string, userId: string) {
  const result = await database.query<MemberRow>(
    'SELECT user_id, owner, joined_at FROM chat_room_members WHERE room_id = $1 AND user_id = $2',
    [roomId, userId],
  );
  const row = result.rows[0];
  return row && memberFromRow(row);
}

async function selectMembers(database: Queryable, roomId: string) {
  const result = await database.query<MemberRow>(
    'SELECT user_id, owner, joined_at FROM chat_room_members WHERE room_id = $1 ORDER BY joined_at, owner DESC, user_id',
    [roomId],
  );
  return result.rows.map(memberFromRow);
}

/**
 * Call inside a transaction. A duplicate is found without a failing statement, so the
 * transaction stays usable after `already_member`.
 * @throws ChatError `already_member`
 */
async function insertMemberWithSettings(
  client: PoolClient,
  roomId: string,
  member: MemberRecord,
  settings: RoomUserSettingsRecord | undefined,
  messages: readonly OutboxMessage[] | undefined,
) {
  const inserted = await client.query(
    `INSERT INTO chat_room_members (room_id, user_id, owner, joined_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (room_id, user_id) DO NOTHING`,
    [roomId, member.userId, member.owner, member.joinedAt],
  );
  if (inserted.rowCount === 0) {
    throw new ChatError('already_member', `expected a new member but ${member.userId} is already one`);
  }
  if (settings) {
    await upsertSettings(client, roomId, member.userId, {
      muted: settings.muted,
      ...(settings.clearedAt ? { clearedAt: settings.clearedAt } : {}),
    });
  }
  await queuePostgresOutboxMessages(client, messages);
}

/** Call inside a transaction. */
async function deleteMemberRows(
  client: PoolClient,
  roomId: string,
  userId: string,
  messages: readonly OutboxMessage[] | undefined,
) {
  await client.query('DELETE FROM chat_room_user_settings WHERE room_id = $1 AND user_id = $2', [
    roomId,
    userId,
  ]);
  const result = await client.query('DELETE FROM chat_room_members WHERE room_id = $1 AND user_id = $2', [
    roomId,
    userId,
  ]);
  const deleted = (result.rowCount ?? 0) > 0;
  if (deleted) await queuePostgresOutboxMessages(client, messages);
  return deleted;
}

async function updateOwner(database: Queryable, roomId: string, userId: string, owner: boolean) {
  const result = await database.query(
    'UPDATE chat_room_members SET owner = $3 WHERE room_id = $1 AND user_id = $2',
    [roomId, userId, owner],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Call inside a transaction: queues the room's blobs, then deletes it (the rest cascades). */
async function deleteRoomRows(client: PoolClient, roomId: string) {
  const blobs = await client.query<{ blob_key: string }>(
    'SELECT blob_key FROM chat_attachments WHERE room_id = $1 UNION SELECT blob_key FROM chat_room_pictures WHERE room_id = $1',
    [roomId],
  );
  await client.query(queueBlobsSql, [blobs.rows.map((row) => row.blob_key)]);
  const deleted = await client.query('DELETE FROM chat_rooms WHERE id = $1', [roomId]);
  return (deleted.rowCount ?? 0) > 0;
}

/** A {@link LockedRoom} on the client whose transaction holds the room's row; unusable once `isOpen` is false. */
function lockedRoomOn(
  client: PoolClient,
  room: RoomRecord,
  translate: PostgresContext['translate'],
  isOpen: () => boolean,
): LockedRoom {
  const open = () => {
    if (!isOpen()) throw new Error(`the lock of room ${room.id} was used after its withRoomLock ended`);
    return client;
  };
  return {
    room,
    getMember: (userId) => selectMember(open(), room.id, userId),
    listMembers: () => selectMembers(open(), room.id),
    async insertMember(member, settings, messages) {
      try {
        await insertMemberWithSettings(open(), room.id, member, settings, messages);
      } catch (error) {
        translate(error, room.id, member.userId);
      }
    },
    deleteMember: (userId, messages) => deleteMemberRows(open(), room.id, userId, messages),
    setOwner: (userId, owner) => updateOwner(open(), room.id, userId, owner),
    deleteRoom: () => deleteRoomRows(open(), room.id),
  };
}

/**
 * The member queries of the PostgreSQL store. `withRoomLock` runs its work in one transaction that
 * starts with `SELECT ... FOR NO KEY UPDATE` on the room's row: other processes' locks of that room
 * wait for the commit, while inserts that merely reference the room (attachments, settings) do not.
 */
export function createPostgresMemberQueries({
  pool,
  transaction,
  translate,
}: PostgresContext): PostgresMemberQueries {
  return {
    deleteRoom: (roomId) => transaction((client) => deleteRoomRows(client, roomId)),
    getMember: (roomId, userId) => selectMember(pool, roomId, userId),
    listMembers: (roomId) => selectMembers(pool, roomId),
    async insertMember(roomId, member, settings, messages) {
      try {
        await transaction((client) => insertMemberWithSettings(client, roomId, member, settings, messages));
      } catch (error) {
        translate(error, roomId, member.userId);
      }
    },
    deleteMember: (roomId, userId, messages) =>
      transaction((client) => deleteMemberRows(client, roomId, userId, messages)),
    setOwner: (roomId, userId, owner) => updateOwner(pool, roomId, userId, owner),
    withRoomLock(roomId, work) {
      return transaction(async (client) => {
        const result = await client.query<RoomRow>(
          `SELECT ${roomColumns} FROM chat_rooms r WHERE r.id = $1 FOR NO KEY UPDATE`,
          [roomId],
        );
        const row = result.rows[0];
        if (row === undefined) {
          throw roomNotFound(roomId);
        }
        let open = true;
        try {
          return await work(lockedRoomOn(client, roomFromRow(row), translate, () => open));
        } finally {
          open = false;
        }
      });
    },
  };
}
