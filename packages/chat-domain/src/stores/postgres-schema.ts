import type { ClientBase } from 'pg';

/** PostgreSQL schema versions, applied in order; never edit a released one, append a new one. */
const migrations: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE chat_rooms (
  id uuid PRIMARY KEY,
  type text NOT NULL CHECK (type IN ('group', 'one_to_one', 'temporary')),
  name text NOT NULL,
  description text NOT NULL,
  one_to_one_key text UNIQUE,
  meeting_id uuid,
  picture_updated_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE TABLE chat_room_members (
  room_id uuid NOT NULL REFERENCES chat_rooms (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  owner boolean NOT NULL,
  joined_at timestamptz NOT NULL,
  PRIMARY KEY (room_id, user_id)
);
CREATE INDEX chat_room_members_by_user ON chat_room_members (user_id, room_id);
CREATE TABLE chat_room_user_settings (
  room_id uuid NOT NULL REFERENCES chat_rooms (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  muted boolean NOT NULL DEFAULT false,
  cleared_at timestamptz,
  PRIMARY KEY (room_id, user_id)
);
CREATE TABLE chat_room_pictures (
  room_id uuid PRIMARY KEY REFERENCES chat_rooms (id) ON DELETE CASCADE,
  blob_key text NOT NULL,
  name text NOT NULL,
  mime_type text NOT NULL,
  size bigint NOT NULL,
  user_id uuid NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE TABLE chat_attachments (
  id uuid PRIMARY KEY,
  room_id uuid NOT NULL REFERENCES chat_rooms (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  name text NOT NULL,
  mime_type text NOT NULL,
  size bigint NOT NULL,
  area text,
  blob_key text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX chat_attachments_by_room ON chat_attachments (room_id, created_at DESC, id DESC);
CREATE TABLE chat_pending_blob_deletions (
  blob_key text PRIMARY KEY,
  queued_at timestamptz NOT NULL DEFAULT now()
);`,
  },
  {
    // Meetings: at most one per room, gone with the room; participants gone with the meeting.
    version: 2,
    sql: `
CREATE TABLE chat_meetings (
  id uuid PRIMARY KEY,
  room_id uuid NOT NULL UNIQUE REFERENCES chat_rooms (id) ON DELETE CASCADE,
  name text NOT NULL,
  meeting_type text NOT NULL CHECK (meeting_type IN ('permanent', 'scheduled')),
  expiration timestamptz,
  active boolean NOT NULL DEFAULT false,
  started_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX chat_meetings_expiring ON chat_meetings (expiration) WHERE meeting_type = 'scheduled';
CREATE TABLE chat_meeting_participants (
  meeting_id uuid NOT NULL REFERENCES chat_meetings (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  queue_id uuid NOT NULL,
  audio_stream_enabled boolean NOT NULL DEFAULT false,
  video_stream_enabled boolean NOT NULL DEFAULT false,
  screen_stream_enabled boolean NOT NULL DEFAULT false,
  joined_at timestamptz NOT NULL,
  PRIMARY KEY (meeting_id, user_id)
);
CREATE INDEX chat_meeting_participants_by_queue ON chat_meeting_participants (user_id, queue_id);`,
  },
  {
    // Blob keys looked up by the sweep of unreferenced blobs.
    version: 3,
    sql: `
CREATE INDEX chat_attachments_by_blob ON chat_attachments (blob_key);
CREATE INDEX chat_room_pictures_by_blob ON chat_room_pictures (blob_key);`,
  },
  {
    // The outbox of the XMPP mirror, and the lease of the one process that drains it.
    version: 4,
    sql: `
CREATE TABLE chat_mirror_outbox (
  sequence bigserial PRIMARY KEY,
  operation jsonb NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL
);
CREATE TABLE chat_mirror_lease (
  id integer PRIMARY KEY CHECK (id = 1),
  owner text NOT NULL,
  lease_until timestamptz NOT NULL
);`,
  },
  {
    // While the mirror outbox is switched on, each change a mirror follows queues a room operation
    // in its own transaction: rooms inserted, renamed or deleted, members inserted, deleted or
    // promoted and demoted (a deleted room's members are deleted by the cascade, queueing more
    // operations for the same room, which the drainer applies once).
    version: 5,
    sql: `
CREATE TABLE chat_mirror_switch (
  id integer PRIMARY KEY CHECK (id = 1),
  enabled boolean NOT NULL
);
CREATE FUNCTION chat_mirror_queue_room() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed_room uuid;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM chat_mirror_switch WHERE enabled) THEN
    RETURN NULL;
  END IF;
  IF TG_TABLE_NAME = 'chat_rooms' THEN
    changed_room := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
  ELSE
    changed_room := CASE WHEN TG_OP = 'DELETE' THEN OLD.room_id ELSE NEW.room_id END;
  END IF;
  INSERT INTO chat_mirror_outbox (operation, created_at)
    VALUES (jsonb_build_object('kind', 'room', 'roomId', changed_room), now());
  RETURN NULL;
END $$;
CREATE TRIGGER chat_rooms_mirror_inserted AFTER INSERT OR DELETE ON chat_rooms
  FOR EACH ROW EXECUTE FUNCTION chat_mirror_queue_room();
CREATE TRIGGER chat_rooms_mirror_renamed AFTER UPDATE ON chat_rooms
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description)
  EXECUTE FUNCTION chat_mirror_queue_room();
CREATE TRIGGER chat_room_members_mirror_changed AFTER INSERT OR DELETE ON chat_room_members
  FOR EACH ROW EXECUTE FUNCTION chat_mirror_queue_room();
CREATE TRIGGER chat_room_members_mirror_owner AFTER UPDATE ON chat_room_members
  FOR EACH ROW WHEN (OLD.owner IS DISTINCT FROM NEW.owner)
  EXECUTE FUNCTION chat_mirror_queue_room();`,
  },
  {
    // Every statement inserting into the outbox notifies the drainers (at commit; notices of one
    // transaction with the same payload are delivered once). The payload names the owner of a valid
    // lease, so that only that drainer wakes; empty when none is valid, and then every drainer looks.
    version: 6,
    sql: `
CREATE FUNCTION chat_mirror_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('chat_mirror_outbox',
    COALESCE((SELECT owner FROM chat_mirror_lease WHERE id = 1 AND lease_until > now()), ''));
  RETURN NULL;
END $$;
CREATE TRIGGER chat_mirror_outbox_notify AFTER INSERT ON chat_mirror_outbox
  FOR EACH STATEMENT EXECUTE FUNCTION chat_mirror_notify();`,
  },
  {
    // Several API nodes: the media node a meeting lives on (its one home, null while it has none)
    // and the fencing token of its lock, raised by every holder before it writes (see docs/scaling.md).
    version: 7,
    sql: `
ALTER TABLE chat_meetings ADD COLUMN media_node_id text;
ALTER TABLE chat_meetings ADD COLUMN fence bigint NOT NULL DEFAULT 0;
CREATE INDEX chat_meetings_by_media_node ON chat_meetings (media_node_id) WHERE media_node_id IS NOT NULL;`,
  },
  {
    // The XMPP drainer's lease gets a fencing token, raised whenever another owner (or the same
    // one after it expired) takes it; forgetting entries and counting failures check it.
    version: 8,
    sql: 'ALTER TABLE chat_mirror_lease ADD COLUMN fence bigint NOT NULL DEFAULT 0;',
  },
];

/**
 * Applies the migrations the database has not seen yet, in one transaction guarded by an advisory
 * lock so that server instances starting together migrate once.
 */
export async function migratePostgres(client: ClientBase): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('collab_suite_chat_schema'))");
    await client.query(
      'CREATE TABLE IF NOT EXISTS chat_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const result = await client.query<{ version: number }>('SELECT version FROM chat_schema_migrations');
    const applied = new Set(result.rows.map((row) => row.version));
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO chat_schema_migrations (version) VALUES ($1)', [migration.version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
