import type { Database } from 'better-sqlite3';

/** The statement a mirror trigger runs: queue a room operation for the room `roomIdExpression` names. */
function queueRoom(roomIdExpression: string): string {
  return `INSERT INTO chat_mirror_outbox (operation, created_at)
    VALUES (json_object('kind', 'room', 'roomId', ${roomIdExpression}), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));`;
}

/** SQLite schema versions, applied in order; never edit a released one, append a new one. */
const migrations: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE chat_rooms (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL CHECK (type IN ('group', 'one_to_one', 'temporary')),
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  one_to_one_key TEXT UNIQUE,
  meeting_id TEXT,
  picture_updated_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE chat_room_members (
  room_id TEXT NOT NULL REFERENCES chat_rooms (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  owner INTEGER NOT NULL,
  joined_at INTEGER NOT NULL,
  PRIMARY KEY (room_id, user_id)
);
CREATE INDEX chat_room_members_by_user ON chat_room_members (user_id, room_id);
CREATE TABLE chat_room_user_settings (
  room_id TEXT NOT NULL REFERENCES chat_rooms (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  muted INTEGER NOT NULL DEFAULT 0,
  cleared_at INTEGER,
  PRIMARY KEY (room_id, user_id)
);
CREATE TABLE chat_room_pictures (
  room_id TEXT PRIMARY KEY REFERENCES chat_rooms (id) ON DELETE CASCADE,
  blob_key TEXT NOT NULL,
  name TEXT NOT NULL,
  mime_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE chat_attachments (
  id TEXT PRIMARY KEY,
  room_id TEXT NOT NULL REFERENCES chat_rooms (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  name TEXT NOT NULL,
  mime_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  area TEXT,
  blob_key TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX chat_attachments_by_room ON chat_attachments (room_id, created_at DESC, id DESC);
CREATE TABLE chat_pending_blob_deletions (
  blob_key TEXT PRIMARY KEY,
  queued_at INTEGER NOT NULL
);`,
  },
  {
    // Members clustered by room: listing a user's rooms with their members reads each room's
    // members as one contiguous range instead of one table lookup per member.
    version: 2,
    sql: `
CREATE TABLE chat_room_members_clustered (
  room_id TEXT NOT NULL REFERENCES chat_rooms (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  owner INTEGER NOT NULL,
  joined_at INTEGER NOT NULL,
  PRIMARY KEY (room_id, user_id)
) WITHOUT ROWID;
INSERT INTO chat_room_members_clustered (room_id, user_id, owner, joined_at)
  SELECT room_id, user_id, owner, joined_at FROM chat_room_members;
DROP TABLE chat_room_members;
ALTER TABLE chat_room_members_clustered RENAME TO chat_room_members;
CREATE INDEX chat_room_members_by_user ON chat_room_members (user_id, room_id);`,
  },
  {
    // Meetings: at most one per room, gone with the room; participants gone with the meeting.
    version: 3,
    sql: `
CREATE TABLE chat_meetings (
  id TEXT PRIMARY KEY,
  room_id TEXT NOT NULL UNIQUE REFERENCES chat_rooms (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  meeting_type TEXT NOT NULL CHECK (meeting_type IN ('permanent', 'scheduled')),
  expiration INTEGER,
  active INTEGER NOT NULL DEFAULT 0,
  started_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX chat_meetings_expiring ON chat_meetings (expiration) WHERE meeting_type = 'scheduled';
CREATE TABLE chat_meeting_participants (
  meeting_id TEXT NOT NULL REFERENCES chat_meetings (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  queue_id TEXT NOT NULL,
  audio_stream_enabled INTEGER NOT NULL DEFAULT 0,
  video_stream_enabled INTEGER NOT NULL DEFAULT 0,
  screen_stream_enabled INTEGER NOT NULL DEFAULT 0,
  joined_at INTEGER NOT NULL,
  PRIMARY KEY (meeting_id, user_id)
) WITHOUT ROWID;
CREATE INDEX chat_meeting_participants_by_queue ON chat_meeting_participants (user_id, queue_id);`,
  },
  {
    // Rooms clustered by id (one B-tree instead of a rowid table plus an id index) and the
    // one_to_one key indexed only where it is set: creating a group room writes two fewer pages.
    // Other tables reference chat_rooms by name, so they follow the rebuilt table; this migration
    // runs with foreign keys off (see migrateSqlite) and is checked with foreign_key_check.
    version: 4,
    sql: `
CREATE TABLE chat_rooms_clustered (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL CHECK (type IN ('group', 'one_to_one', 'temporary')),
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  one_to_one_key TEXT,
  meeting_id TEXT,
  picture_updated_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO chat_rooms_clustered
  SELECT id, type, name, description, one_to_one_key, meeting_id, picture_updated_at, created_at, updated_at
  FROM chat_rooms;
DROP TABLE chat_rooms;
ALTER TABLE chat_rooms_clustered RENAME TO chat_rooms;
CREATE UNIQUE INDEX chat_rooms_one_to_one_key ON chat_rooms (one_to_one_key) WHERE one_to_one_key IS NOT NULL;`,
  },
  {
    // Blob keys looked up by the sweep of unreferenced blobs.
    version: 5,
    sql: `
CREATE INDEX chat_attachments_by_blob ON chat_attachments (blob_key);
CREATE INDEX chat_room_pictures_by_blob ON chat_room_pictures (blob_key);`,
  },
  {
    // The outbox of the XMPP mirror, and the lease of the drainer.
    version: 6,
    sql: `
CREATE TABLE chat_mirror_outbox (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  operation TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE TABLE chat_mirror_lease (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  owner TEXT NOT NULL,
  lease_until INTEGER NOT NULL
);`,
  },
  {
    // While the mirror outbox is switched on, each change a mirror follows queues a room operation
    // in its own transaction (see the PostgreSQL schema's version 5).
    version: 7,
    sql: `
CREATE TABLE chat_mirror_switch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  enabled INTEGER NOT NULL
);
${['INSERT', 'DELETE']
  .map(
    (event) => `
CREATE TRIGGER chat_rooms_mirror_${event.toLowerCase()} AFTER ${event} ON chat_rooms
  WHEN (SELECT enabled FROM chat_mirror_switch WHERE id = 1)
  BEGIN ${queueRoom(event === 'DELETE' ? 'OLD.id' : 'NEW.id')} END;
CREATE TRIGGER chat_room_members_mirror_${event.toLowerCase()} AFTER ${event} ON chat_room_members
  WHEN (SELECT enabled FROM chat_mirror_switch WHERE id = 1)
  BEGIN ${queueRoom(event === 'DELETE' ? 'OLD.room_id' : 'NEW.room_id')} END;`,
  )
  .join('')}
CREATE TRIGGER chat_rooms_mirror_renamed AFTER UPDATE OF name, description ON chat_rooms
  WHEN (SELECT enabled FROM chat_mirror_switch WHERE id = 1)
    AND (OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description)
  BEGIN ${queueRoom('NEW.id')} END;
CREATE TRIGGER chat_room_members_mirror_owner AFTER UPDATE OF owner ON chat_room_members
  WHEN (SELECT enabled FROM chat_mirror_switch WHERE id = 1) AND OLD.owner IS NOT NEW.owner
  BEGIN ${queueRoom('NEW.room_id')} END;`,
  },
  {
    // How many rooms each user is in, kept by the members' own writes: the room quota reads it on
    // every creation and addition, on the calling thread, where counting a user's index entries
    // took milliseconds near the default limit of 10 000 rooms. A room's deletion cascades to its
    // members, which fires the delete trigger too.
    version: 8,
    sql: `
CREATE TABLE chat_user_room_counts (
  user_id TEXT PRIMARY KEY,
  rooms INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO chat_user_room_counts (user_id, rooms)
  SELECT user_id, count(*) FROM chat_room_members GROUP BY user_id;
CREATE TRIGGER chat_room_members_counted AFTER INSERT ON chat_room_members BEGIN
  INSERT INTO chat_user_room_counts (user_id, rooms) VALUES (NEW.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET rooms = rooms + 1;
END;
CREATE TRIGGER chat_room_members_uncounted AFTER DELETE ON chat_room_members BEGIN
  UPDATE chat_user_room_counts SET rooms = rooms - 1 WHERE user_id = OLD.user_id;
END;`,
  },
  {
    // The columns of PostgreSQL's version 7 (a meeting's media node and the fencing token of its
    // lock), so the schemas stay alike; one process is the only home and lock holder, so nothing
    // here reads or writes them.
    version: 9,
    sql: `
ALTER TABLE chat_meetings ADD COLUMN media_node_id TEXT;
ALTER TABLE chat_meetings ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;`,
  },
];

/**
 * Applies the migrations `database` has not seen yet (up to `targetVersion`), in one transaction.
 * Foreign keys are off meanwhile, as SQLite requires for rebuilding a referenced table (dropping it
 * would otherwise cascade); the transaction fails if any reference is left dangling.
 */
export function migrateSqlite(database: Database, targetVersion = Number.POSITIVE_INFINITY): void {
  database.exec(
    'CREATE TABLE IF NOT EXISTS chat_schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)',
  );
  const foreignKeys = database.pragma('foreign_keys', { simple: true }) as number;
  database.pragma('foreign_keys = OFF');
  try {
    applyMigrations(database, targetVersion);
  } finally {
    database.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
  }
}

function applyMigrations(database: Database, targetVersion: number): void {
  const apply = database.transaction(() => {
    const applied = new Set(
      database
        .prepare('SELECT version FROM chat_schema_migrations')
        .all()
        .map((row) => (row as { version: number }).version),
    );
    for (const migration of migrations) {
      if (applied.has(migration.version) || migration.version > targetVersion) continue;
      database.exec(migration.sql);
      database
        .prepare('INSERT INTO chat_schema_migrations (version, applied_at) VALUES (?, ?)')
        .run(migration.version, Date.now());
    }
    const dangling = database.pragma('foreign_key_check') as unknown[];
    if (dangling.length > 0) {
      throw new Error(
        `schema migration left ${dangling.length} dangling references: ${JSON.stringify(dangling[0])}`,
      );
    }
  });
  apply.immediate();
}
