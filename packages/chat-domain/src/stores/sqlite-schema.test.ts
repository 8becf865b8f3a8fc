import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrateSqlite } from './sqlite-schema.js';

describe('SQLite schema migrations', () => {
  it('moves members of a version 1 database into the clustered table of version 2, keeping the cascade', () => {
    const database = new BetterSqlite3(':memory:');
    database.pragma('foreign_keys = ON');
    migrateSqlite(database, 1);
    database.prepare("INSERT INTO chat_rooms VALUES ('r1', 'group', 'n', '', NULL, NULL, NULL, 1, 1)").run();
    database.prepare("INSERT INTO chat_room_members VALUES ('r1', 'u1', 1, 1), ('r1', 'u2', 0, 2)").run();
    migrateSqlite(database);
    const versions = database.prepare('SELECT version FROM chat_schema_migrations ORDER BY version').all();
    expect(versions).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
    expect(database.prepare('SELECT user_id, owner FROM chat_room_members ORDER BY user_id').all()).toEqual([
      { user_id: 'u1', owner: 1 },
      { user_id: 'u2', owner: 0 },
    ]);
    const plan = database
      .prepare("EXPLAIN QUERY PLAN SELECT room_id FROM chat_room_members WHERE user_id = 'u1'")
      .all();
    expect(JSON.stringify(plan)).toContain('chat_room_members_by_user');
    database.prepare("DELETE FROM chat_rooms WHERE id = 'r1'").run();
    expect(database.prepare('SELECT count(*) AS count FROM chat_room_members').get()).toEqual({ count: 0 });
    migrateSqlite(database);
    database.close();
  });
});
