import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { loadDriver } from '../drivers.js';
import { orderProperties } from '../model/defaults.js';
import type { SamlProperties } from '../model/property-definitions.js';
import { parseOptions } from '../options.js';
import {
  decodeStoredRows,
  encodeStoredValue,
  type SamlPropertyStore,
  storeFailure,
} from './property-store.js';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Options of {@link createSqliteSamlPropertyStore}. */
export const sqliteSamlPropertyStoreOptionsSchema = z.strictObject({
  /** Database file (created with its folder if missing), or `:memory:`. */
  filename: z.string().min(1),
  /**
   * Table holding one row per domain and property.
   * @default "saml_properties"
   */
  tableName: z.string().regex(IDENTIFIER).default('saml_properties'),
  /**
   * How long a write waits for another process holding the file lock, in milliseconds: long enough
   * to ride out a concurrent import, short enough to fail an admin request visibly.
   * @default 5000
   */
  busyTimeoutMs: z.number().int().min(0).default(5000),
});

/** Input of {@link createSqliteSamlPropertyStore}. */
export type SqliteSamlPropertyStoreOptions = z.input<typeof sqliteSamlPropertyStoreOptionsSchema>;

/**
 * {@link SamlPropertyStore} in a SQLite file (the embedded default, a file in DATA_DIR). WAL mode;
 * each `write` is one transaction, so a failed import changes nothing.
 * @throws SamlConfigError `invalid_options`, `store_failed` when the file cannot be opened
 */
export function createSqliteSamlPropertyStore(options: SqliteSamlPropertyStoreOptions): SamlPropertyStore {
  const resolved = parseOptions(
    sqliteSamlPropertyStoreOptionsSchema,
    options,
    'createSqliteSamlPropertyStore',
  );
  const Sqlite = loadDriver<typeof Database>('better-sqlite3');
  let database: Database.Database;
  try {
    if (resolved.filename !== ':memory:') mkdirSync(dirname(resolved.filename), { recursive: true });
    database = new Sqlite(resolved.filename, { timeout: resolved.busyTimeoutMs });
    database.pragma('journal_mode = WAL');
    database.exec(
      `CREATE TABLE IF NOT EXISTS ${resolved.tableName} (domain TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (domain, key))`,
    );
  } catch (error) {
    throw storeFailure(error, `opening the SAML property database ${resolved.filename}`);
  }
  const table = resolved.tableName;
  const selectRows = database.prepare<[string], { key: string; value: string }>(
    `SELECT key, value FROM ${table} WHERE domain = ?`,
  );
  const deleteAll = database.prepare<[string]>(`DELETE FROM ${table} WHERE domain = ?`);
  const deleteKey = database.prepare<[string, string]>(`DELETE FROM ${table} WHERE domain = ? AND key = ?`);
  const upsert = database.prepare<[string, string, string]>(
    `INSERT INTO ${table} (domain, key, value) VALUES (?, ?, ?) ON CONFLICT (domain, key) DO UPDATE SET value = excluded.value`,
  );
  const read = (domain: string): SamlProperties => orderProperties(decodeStoredRows(selectRows.all(domain)));
  const write = database.transaction((domain: string, change: Parameters<SamlPropertyStore['write']>[1]) => {
    if (change.remove === 'all') deleteAll.run(domain);
    else for (const key of change.remove ?? []) deleteKey.run(domain, key);
    for (const [key, value] of Object.entries(change.set ?? {}))
      upsert.run(domain, key, encodeStoredValue(key, value));
    return read(domain);
  });
  let closed = false;
  return {
    async get(domain) {
      try {
        return read(domain);
      } catch (error) {
        throw storeFailure(error, 'reading SAML properties');
      }
    },
    async write(domain, change) {
      try {
        return write(domain, change);
      } catch (error) {
        throw storeFailure(error, 'writing SAML properties');
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      database.close();
    },
  };
}
