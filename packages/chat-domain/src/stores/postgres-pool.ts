import type pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { loadDriver } from '../drivers.js';
import { postgresUnavailableReason } from './postgres-unavailable.js';

/** What {@link poolConfig} needs of the store's options. */
export interface PostgresPoolOptions {
  connectionString: string;
  maxConnections?: number | undefined;
  connectionTimeoutMs?: number | undefined;
  queryTimeoutMs?: number | undefined;
}

const guardedPools = new WeakSet<Pool>();

/**
 * Keeps a lost connection from ending the process: pg emits `error` on an idle pooled client (the
 * pool then on itself) and on a checked-out one between queries, and an `error` event without a
 * listener throws. The failure still reaches the query that was running, and pg-pool drops the client.
 */
export function survivePostgresErrors(pool: Pool): void {
  // Once per pool, however many stores share it.
  if (guardedPools.has(pool)) return;
  guardedPools.add(pool);
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
}

/** The pg pool settings of a store opened with a connection string. */
export function poolConfig(options: PostgresPoolOptions): pg.PoolConfig {
  const queryTimeoutMs = options.queryTimeoutMs ?? 10_000;
  return {
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 2000,
    ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
  };
}

/**
 * The connection settings of `pool`, for a client of its own: pg-pool hides `password` from
 * enumeration, so a spread alone would lose it.
 */
export function connectionOf(pool: Pool): pg.ClientConfig {
  const options = pool.options as pg.PoolConfig;
  return { ...options, ...(options.password === undefined ? {} : { password: options.password }) };
}

/**
 * Runs `work` on a connection of its own, outside the pool and without the query timeout: schema
 * migrations may wait for another process's migration (an advisory lock) longer than a statement may.
 */
export async function withOwnClient<T>(
  connection: pg.ClientConfig,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const { query_timeout: _queryTimeout, ...unbounded } = connection;
  const client = new (loadDriver<typeof pg>('pg').Client)(unbounded);
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Runs `work` in a transaction on a client of `pool`; a lost connection is dropped, not reused. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (error) {
    // A lost connection needs no ROLLBACK (the server rolls back when it goes): drop it instead.
    if (postgresUnavailableReason(error) !== undefined) {
      client.release(error as Error);
      throw error;
    }
    try {
      await client.query('ROLLBACK');
      client.release();
    } catch (rollbackError) {
      client.release(rollbackError as Error);
    }
    throw error;
  }
}
