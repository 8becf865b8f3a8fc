import pg from 'pg';

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/**
 * Creates a chat test database if missing; returns its connection string. The default one is
 * truncated by the store conformance suite; a file whose tests run meanwhile passes its own name.
 */
export async function chatTestDatabaseUrl(databaseName = 'collab_test_chat'): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${databaseName}`);
  } catch (error) {
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
}

/** Empties every chat table (they exist once a store has been opened). */
export async function truncateChatTables(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(
      `DO $$ BEGIN
         IF to_regclass('chat_rooms') IS NOT NULL THEN
           TRUNCATE chat_rooms, chat_room_members, chat_room_user_settings, chat_room_pictures, chat_attachments,
             chat_pending_blob_deletions, chat_meetings, chat_meeting_participants;
         END IF;
         IF to_regclass('chat_mirror_outbox') IS NOT NULL THEN
           TRUNCATE chat_mirror_outbox, chat_mirror_lease;
         END IF;
         IF to_regclass('chat_mirror_switch') IS NOT NULL THEN
           TRUNCATE chat_mirror_switch;
         END IF;
       END $$`,
    );
  } finally {
    await client.end();
  }
}
