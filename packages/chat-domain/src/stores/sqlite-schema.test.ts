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
    expect(versions).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((version) => ({ version })));
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

  it('rebuilds version 3 rooms as a clustered table, keeping rows, references, cascades and the one_to_one rule', () => {
    const database = new BetterSqlite3(':memory:');
    database.pragma('foreign_keys = ON');
    migrateSqlite(database, 3);
    const insertRoom = database.prepare('INSERT INTO chat_rooms VALUES (?, ?, ?, ?, ?, NULL, NULL, 1, 2)');
    insertRoom.run('g1', 'group', 'Group', 'about', null);
    insertRoom.run('g2', 'group', 'Other', '', null);
    insertRoom.run('o1', 'one_to_one', '', '', 'u1|u2');
    database.prepare("INSERT INTO chat_room_members VALUES ('g1', 'u1', 1, 1), ('o1', 'u1', 1, 1)").run();
    database.prepare("INSERT INTO chat_room_user_settings VALUES ('g1', 'u1', 1, NULL)").run();
    database
      .prepare(
        "INSERT INTO chat_attachments VALUES ('a1', 'g1', 'u1', 'f.txt', 'text/plain', 3, NULL, 'k1', 5)",
      )
      .run();
    database
      .prepare("INSERT INTO chat_meetings VALUES ('m1', 'g1', 'Meeting', 'permanent', NULL, 0, NULL, 1)")
      .run();

    migrateSqlite(database);

    const tableSql = database.prepare("SELECT sql FROM sqlite_master WHERE name = 'chat_rooms'").get() as {
      sql: string;
    };
    expect(tableSql.sql).toMatch(/WITHOUT ROWID$/);
    expect(
      database
        .prepare('SELECT id, type, name, description, one_to_one_key FROM chat_rooms ORDER BY id')
        .all(),
    ).toEqual([
      { id: 'g1', type: 'group', name: 'Group', description: 'about', one_to_one_key: null },
      { id: 'g2', type: 'group', name: 'Other', description: '', one_to_one_key: null },
      { id: 'o1', type: 'one_to_one', name: '', description: '', one_to_one_key: 'u1|u2' },
    ]);
    expect(database.pragma('foreign_keys', { simple: true })).toBe(1);
    // Several group rooms share a NULL key; a second room with the same one_to_one key is refused.
    insertRoom.run('g3', 'group', 'Third', '', null);
    expect(() => insertRoom.run('o2', 'one_to_one', '', '', 'u1|u2')).toThrow(
      expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }),
    );
    expect(() => database.prepare("INSERT INTO chat_room_members VALUES ('nope', 'u1', 1, 1)").run()).toThrow(
      expect.objectContaining({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }),
    );
    database.prepare("DELETE FROM chat_rooms WHERE id = 'g1'").run();
    for (const table of [
      'chat_room_members',
      'chat_room_user_settings',
      'chat_attachments',
      'chat_meetings',
    ]) {
      const { count } = database
        .prepare(`SELECT count(*) AS count FROM ${table} WHERE room_id = 'g1'`)
        .get() as {
        count: number;
      };
      expect(count, table).toBe(0);
    }
    expect(
      database.prepare("SELECT count(*) AS count FROM chat_room_members WHERE room_id = 'o1'").get(),
    ).toEqual({
      count: 1,
    });
    database.close();
  });

  it('counts the rooms of every user from version 8 on: members present before it, then each insert, delete and cascade', () => {
    const database = new BetterSqlite3(':memory:');
    database.pragma('foreign_keys = ON');
    migrateSqlite(database, 7);
    const insertRoom = database.prepare(
      "INSERT INTO chat_rooms VALUES (?, 'group', 'n', '', NULL, NULL, NULL, 1, 1)",
    );
    insertRoom.run('r1');
    insertRoom.run('r2');
    database
      .prepare(
        "INSERT INTO chat_room_members VALUES ('r1', 'u1', 1, 1), ('r2', 'u1', 1, 1), ('r2', 'u2', 0, 1)",
      )
      .run();
    migrateSqlite(database);
    const counts = () =>
      Object.fromEntries(
        (
          database.prepare('SELECT user_id, rooms FROM chat_user_room_counts ORDER BY user_id').all() as {
            user_id: string;
            rooms: number;
          }[]
        ).map((row) => [row.user_id, row.rooms]),
      );
    expect(counts()).toEqual({ u1: 2, u2: 1 });
    insertRoom.run('r3');
    database.prepare("INSERT INTO chat_room_members VALUES ('r3', 'u2', 1, 1), ('r3', 'u3', 0, 1)").run();
    expect(counts()).toEqual({ u1: 2, u2: 2, u3: 1 });
    database.prepare("DELETE FROM chat_room_members WHERE room_id = 'r1' AND user_id = 'u1'").run();
    database.prepare("DELETE FROM chat_rooms WHERE id = 'r3'").run();
    expect(counts()).toEqual({ u1: 1, u2: 1, u3: 0 });
    database.close();
  });
});
