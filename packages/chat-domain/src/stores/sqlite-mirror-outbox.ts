import type { Database, Statement } from 'better-sqlite3';
import type {
  MirrorOperation,
  MirrorOutbox,
  MirrorOutboxClaim,
  OutboxMessage,
} from '../ports/mirror-outbox.js';

interface OutboxRow {
  sequence: number;
  operation: string;
  attempts: number;
  created_at: number;
}

/** Queues messages when the outbox is enabled; call inside the transaction of the write they go with. */
export function queueSqliteOutboxMessages(
  sql: (text: string) => Statement,
  messages: readonly OutboxMessage[] | undefined,
): void {
  if (messages === undefined || messages.length === 0) return;
  const insert = sql(
    `INSERT INTO chat_mirror_outbox (operation, created_at)
     SELECT ?, ? WHERE (SELECT enabled FROM chat_mirror_switch WHERE id = 1)`,
  );
  const now = Date.now();
  for (const message of messages) insert.run(JSON.stringify(message), now);
}

/** The mirror outbox in SQLite: `chat_mirror_outbox`, and the drainer's lease in `chat_mirror_lease`. */
export function createSqliteMirrorOutbox({
  database,
  sql,
}: {
  database: Database;
  sql(text: string): Statement;
}): MirrorOutbox {
  const enqueue = database.transaction((operations: readonly MirrorOperation[], createdAt: number) => {
    const insert = sql('INSERT INTO chat_mirror_outbox (operation, created_at) VALUES (?, ?)');
    for (const operation of operations) insert.run(JSON.stringify(operation), createdAt);
  });
  const claim = database.transaction(({ owner, limit, now, leaseUntil }: MirrorOutboxClaim) => {
    const leased = sql(
      `INSERT INTO chat_mirror_lease (id, owner, lease_until) VALUES (1, ?, ?)
       ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
       WHERE chat_mirror_lease.owner = excluded.owner OR chat_mirror_lease.lease_until <= ?`,
    ).run(owner, leaseUntil.getTime(), now.getTime());
    if (leased.changes === 0) return [];
    const rows = sql(
      'SELECT sequence, operation, attempts, created_at FROM chat_mirror_outbox ORDER BY sequence LIMIT ?',
    ).all(limit) as OutboxRow[];
    return rows.map((row) => ({
      sequence: row.sequence,
      operation: JSON.parse(row.operation) as MirrorOperation,
      attempts: row.attempts,
      createdAt: new Date(row.created_at),
    }));
  });
  const queueMessages = database.transaction((messages: readonly OutboxMessage[]) =>
    queueSqliteOutboxMessages(sql, messages),
  );
  const forget = database.transaction((sequences: readonly number[]) => {
    const remove = sql('DELETE FROM chat_mirror_outbox WHERE sequence = ?');
    for (const sequence of sequences) remove.run(sequence);
  });
  return {
    async setMirrorOutboxEnabled(enabled) {
      sql(
        `INSERT INTO chat_mirror_switch (id, enabled) VALUES (1, ?)
         ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled`,
      ).run(enabled ? 1 : 0);
    },
    async enqueueMirrorOperations(operations, createdAt) {
      enqueue(operations, createdAt.getTime());
    },
    async queueMirrorMessages(messages) {
      queueMessages(messages);
    },
    async claimMirrorOperations(request) {
      return claim(request);
    },
    async forgetMirrorOperations(sequences) {
      forget(sequences);
      return true;
    },
    async recordMirrorFailure(sequence) {
      sql('UPDATE chat_mirror_outbox SET attempts = attempts + 1 WHERE sequence = ?').run(sequence);
      return true;
    },
    async countMirrorOperations() {
      return (sql('SELECT count(*) AS count FROM chat_mirror_outbox').get() as { count: number }).count;
    },
    async listRoomIds({ limit, after }) {
      const rows = sql('SELECT id FROM chat_rooms WHERE id > ? ORDER BY id LIMIT ?').all(
        after ?? '',
        limit,
      ) as {
        id: string;
      }[];
      return rows.map((row) => row.id);
    },
  };
}
