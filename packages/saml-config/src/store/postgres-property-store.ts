import type pg from 'pg';
import { z } from 'zod';
import { loadDriver } from '../drivers.js';
import type { SamlConfigError } from '../errors.js';
import { orderProperties } from '../model/defaults.js';
import type { SamlProperties } from '../model/property-definitions.js';
import { parseOptions } from '../options.js';
import { postgresUnavailable, postgresUnavailableReason } from './postgres-unavailable.js';
import {
  decodeStoredRows,
  encodeStoredValue,
  type SamlPropertyChange,
  type SamlPropertyStore,
  storeFailure,
} from './property-store.js';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Options of {@link createPostgresSamlPropertyStore}. */
export const postgresSamlPropertyStoreOptionsSchema = z.strictObject({
  /** `postgres://user@host:port/database`; ignored when `pool` is given. */
  connectionString: z.string().min(1).optional(),
  /** An existing pool to share (not closed by `close()`). */
  pool: z.custom<pg.Pool>((value) => value instanceof loadDriver<typeof pg>('pg').Pool).optional(),
  /**
   * Table holding one row per domain and property.
   * @default "saml_properties"
   */
  tableName: z.string().regex(IDENTIFIER).default('saml_properties'),
  /**
   * Connections of a pool this store creates: property writes are short, admin traffic is light.
   * @default 4
   */
  maxConnections: z.number().int().positive().default(4),
  /**
   * Longest wait for a connection of a pool this store creates, in milliseconds: while PostgreSQL is
   * away, calls fail with `dependency_unavailable` after at most this long instead of hanging.
   * @default 2000
   */
  connectionTimeoutMs: z.number().int().positive().default(2000),
  /**
   * Longest wait for the answer to one statement of a pool this store creates, in milliseconds (a
   * connection gone silent); 0: no limit.
   * @default 10000
   */
  queryTimeoutMs: z.number().int().nonnegative().default(10_000),
});

/** The connections of the store's pg pool now, for monitoring. */
export interface PostgresPoolStats {
  /** Connections open, idle or in use. */
  total: number;
  /** Open connections not in use. */
  idle: number;
  /** Queries and transactions waiting for a connection. */
  waiting: number;
}

/** A {@link SamlPropertyStore} in PostgreSQL, which also reports its connection pool. */
export interface PostgresSamlPropertyStore extends SamlPropertyStore {
  /** The pool's connections now (the caller's pool when one was given). */
  poolStats(): PostgresPoolStats;
}

/** Input of {@link createPostgresSamlPropertyStore}. */
export type PostgresSamlPropertyStoreOptions = z.input<typeof postgresSamlPropertyStoreOptionsSchema>;

async function ensureTable(pool: pg.Pool, table: string): Promise<void> {
  const client = await pool.connect();
  try {
    // Serialise schema creation across processes: concurrent CREATE TABLE IF NOT EXISTS can collide.
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`collab-suite:${table}`]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${table} (domain TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (domain, key))`,
    );
  } finally {
    const unlocked = await client
      .query('SELECT pg_advisory_unlock(hashtext($1))', [`collab-suite:${table}`])
      .then(() => true)
      .catch(() => false);
    // A client that could not unlock may hold the lock still: close it rather than reuse it.
    client.release(!unlocked);
  }
}

async function applyChange(
  client: pg.PoolClient,
  table: string,
  domain: string,
  change: SamlPropertyChange,
): Promise<void> {
  if (change.remove === 'all') await client.query(`DELETE FROM ${table} WHERE domain = $1`, [domain]);
  else if (change.remove !== undefined && change.remove.length > 0) {
    await client.query(`DELETE FROM ${table} WHERE domain = $1 AND key = ANY($2::text[])`, [
      domain,
      [...change.remove],
    ]);
  }
  const entries = Object.entries(change.set ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, value] of entries) {
    await client.query(
      `INSERT INTO ${table} (domain, key, value) VALUES ($1, $2, $3) ON CONFLICT (domain, key) DO UPDATE SET value = EXCLUDED.value`,
      [domain, key, encodeStoredValue(key, value)],
    );
  }
}

/** Attempts of a write that PostgreSQL aborted as a deadlock or serialisation failure. */
const MAX_ATTEMPTS = 3;

type Reader = (queryable: pg.PoolClient, domain: string) => Promise<SamlProperties>;

async function writeOnce(
  pool: pg.Pool,
  table: string,
  domain: string,
  change: SamlPropertyChange,
  read: Reader,
): Promise<SamlProperties> {
  const client = await pool.connect();
  let properties: SamlProperties;
  try {
    await client.query('BEGIN');
    await applyChange(client, table, domain, change);
    properties = await read(client, domain);
    await client.query('COMMIT');
  } catch (error) {
    // A lost connection needs no ROLLBACK (the server rolls back when it goes): drop it instead.
    const rolledBack =
      postgresUnavailableReason(error) === undefined &&
      (await client.query('ROLLBACK').then(
        () => true,
        () => false,
      ));
    client.release(!rolledBack);
    throw error;
  }
  client.release();
  return properties;
}

const guardedPools = new WeakSet<pg.Pool>();

/**
 * Keeps a lost connection from ending the process: pg emits `error` on idle pooled clients (the pool
 * then on itself) and on checked-out ones, and an `error` event without a listener throws. The
 * failure still reaches the query that was running, and pg-pool drops the client.
 */
function survivePostgresErrors(pool: pg.Pool): void {
  // Once per pool, however many stores share it.
  if (guardedPools.has(pool)) return;
  guardedPools.add(pool);
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
}

/** The failure of `doing` as the SamlConfigError a caller should see. */
function failureOf(error: unknown, doing: string): SamlConfigError {
  return postgresUnavailable(error, doing) ?? storeFailure(error, doing);
}

/**
 * {@link SamlPropertyStore} in PostgreSQL (scale-out): same one-row-per-key schema as SQLite, each
 * `write` one transaction, so concurrent writes of different keys both survive and a failed import
 * changes nothing. Creates its table when missing. A lost connection never ends the process (the
 * store listens to the pool's errors, a caller's pool too); calls work again once PostgreSQL is back.
 * @throws SamlConfigError `invalid_options`, `store_failed` when the database cannot be reached at
 * creation; from `get` and `write`, `dependency_unavailable` while PostgreSQL is away (refused or
 * lost connections, a server shutting down or starting, no connection or answer in time)
 */
export async function createPostgresSamlPropertyStore(
  options: PostgresSamlPropertyStoreOptions,
): Promise<PostgresSamlPropertyStore> {
  const resolved = parseOptions(
    postgresSamlPropertyStoreOptionsSchema,
    options,
    'createPostgresSamlPropertyStore',
  );
  const ownsPool = resolved.pool === undefined;
  const pool =
    resolved.pool ??
    new (loadDriver<typeof pg>('pg').Pool)({
      connectionString: resolved.connectionString,
      max: resolved.maxConnections,
      connectionTimeoutMillis: resolved.connectionTimeoutMs,
      ...(resolved.queryTimeoutMs > 0 ? { query_timeout: resolved.queryTimeoutMs } : {}),
    });
  survivePostgresErrors(pool);
  const table = resolved.tableName;
  try {
    await ensureTable(pool, table);
  } catch (error) {
    if (ownsPool) await pool.end().catch(() => undefined);
    throw storeFailure(error, 'preparing the SAML property table');
  }
  const read = async (queryable: pg.Pool | pg.PoolClient, domain: string): Promise<SamlProperties> => {
    const result = await queryable.query<{ key: string; value: string }>(
      `SELECT key, value FROM ${table} WHERE domain = $1`,
      [domain],
    );
    return orderProperties(decodeStoredRows(result.rows));
  };
  let closed = false;
  return {
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async get(domain) {
      try {
        return await read(pool, domain);
      } catch (error) {
        throw failureOf(error, 'reading SAML properties');
      }
    },
    async write(domain, change) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await writeOnce(pool, table, domain, change, read);
        } catch (error) {
          // An import racing a PUT can deadlock on new rows; PostgreSQL aborts one side, which retries.
          const code = (error as { code?: string }).code;
          if ((code === '40P01' || code === '40001') && attempt < MAX_ATTEMPTS) continue;
          throw failureOf(error, 'writing SAML properties');
        }
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (ownsPool) await pool.end();
    },
  };
}
