import type { Pool, PoolClient } from 'pg';
import type { MirrorLease, MirrorOperation, MirrorOutbox, OutboxMessage } from '../ports/mirror-outbox.js';
import type { PostgresContext } from './postgres-file-queries.js';

interface OutboxRow {
  sequence: string;
  operation: MirrorOperation;
  attempts: number;
  created_at: Date;
}

/**
 * The statement that queues the messages of `parameter` (a JSON array), in order, when the outbox is
 * enabled; with `onlyIf`, a relation (a CTE), only for each of its rows (one: the write happened).
 */
export function queueMessagesSql(parameter: string, onlyIf?: string): string {
  return `INSERT INTO chat_mirror_outbox (operation, created_at)
     SELECT operation, now() FROM ${onlyIf ? `${onlyIf}, ` : ''}jsonb_array_elements(${parameter}::jsonb) WITH ORDINALITY AS t(operation, position)
     WHERE EXISTS (SELECT 1 FROM chat_mirror_switch WHERE enabled)
     ORDER BY position`;
}

/**
 * Queues messages, in order, when the outbox is enabled; on a transaction's client, they commit
 * with the write they go with.
 */
export async function queuePostgresOutboxMessages(
  database: Pool | PoolClient,
  messages: readonly OutboxMessage[] | undefined,
): Promise<void> {
  if (messages === undefined || messages.length === 0) return;
  await database.query(queueMessagesSql('$1'), [JSON.stringify(messages)]);
}

/** The mirror outbox in PostgreSQL: `chat_mirror_outbox`, and the drainers' lease in `chat_mirror_lease`. */
export function createPostgresMirrorOutbox(context: PostgresContext): MirrorOutbox {
  const { pool, rows, transaction } = context;
  /**
   * Runs `write` only while `lease` is the current one (compare-and-set on the lease row, held
   * until the write commits so no claim slips in between); false, with nothing written, otherwise.
   */
  const fenced = (lease: MirrorLease | undefined, write: (client: PoolClient) => Promise<unknown>) =>
    transaction(async (client) => {
      if (lease !== undefined) {
        const current = await client.query(
          'SELECT 1 FROM chat_mirror_lease WHERE id = 1 AND owner = $1 AND fence = $2 FOR SHARE',
          [lease.owner, lease.fence],
        );
        if ((current.rowCount ?? 0) === 0) return false;
      }
      await write(client);
      return true;
    });
  return {
    async setMirrorOutboxEnabled(enabled) {
      await pool.query(
        `INSERT INTO chat_mirror_switch (id, enabled) VALUES (1, $1)
         ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled`,
        [enabled],
      );
    },
    async enqueueMirrorOperations(operations, createdAt) {
      if (operations.length === 0) return;
      await pool.query(
        `INSERT INTO chat_mirror_outbox (operation, created_at)
         SELECT operation, $2 FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(operation, position)
         ORDER BY position`,
        [JSON.stringify(operations), createdAt],
      );
    },
    queueMirrorMessages: (messages) => queuePostgresOutboxMessages(pool, messages),
    async claimMirrorOperations({ owner, limit, now, leaseUntil }) {
      return transaction(async (client) => {
        // A new holder (another owner, or this one after its lease ran out) gets a new token.
        const leased = await client.query<{ fence: string }>(
          `INSERT INTO chat_mirror_lease (id, owner, lease_until, fence) VALUES (1, $1, $3, 1)
           ON CONFLICT (id) DO UPDATE SET owner = $1, lease_until = $3,
             fence = CASE WHEN chat_mirror_lease.owner = $1 AND chat_mirror_lease.lease_until > $2
                          THEN chat_mirror_lease.fence ELSE chat_mirror_lease.fence + 1 END
           WHERE chat_mirror_lease.owner = $1 OR chat_mirror_lease.lease_until <= $2
           RETURNING fence`,
          [owner, now, leaseUntil],
        );
        const lease = leased.rows[0];
        if (lease === undefined) return [];
        const result = await client.query<OutboxRow>(
          'SELECT sequence, operation, attempts, created_at FROM chat_mirror_outbox ORDER BY sequence LIMIT $1',
          [limit],
        );
        return result.rows.map((row) => ({
          sequence: Number(row.sequence),
          operation: row.operation,
          attempts: row.attempts,
          createdAt: row.created_at,
          fence: Number(lease.fence),
        }));
      });
    },
    async forgetMirrorOperations(sequences, lease) {
      if (sequences.length === 0) return true;
      return fenced(lease, (client) =>
        client.query('DELETE FROM chat_mirror_outbox WHERE sequence = ANY($1::bigint[])', [sequences]),
      );
    },
    async recordMirrorFailure(sequence, lease) {
      return fenced(lease, (client) =>
        client.query('UPDATE chat_mirror_outbox SET attempts = attempts + 1 WHERE sequence = $1', [sequence]),
      );
    },
    async countMirrorOperations() {
      return Number(
        (await rows<{ count: string }>('SELECT count(*) AS count FROM chat_mirror_outbox', []))[0]?.count,
      );
    },
    async listRoomIds({ limit, after }) {
      const found = await rows<{ id: string }>(
        'SELECT id FROM chat_rooms WHERE $2::uuid IS NULL OR id > $2::uuid ORDER BY id LIMIT $1',
        [limit, after ?? null],
      );
      return found.map((row) => row.id);
    },
  };
}
