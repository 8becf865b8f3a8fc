import { SamlConfigError } from '../errors.js';
import {
  isSamlPropertyKey,
  type SamlProperties,
  type SamlPropertyKey,
} from '../model/property-definitions.js';

/** One atomic change to a domain's stored properties: removals first, then writes. */
export interface SamlPropertyChange {
  /** Keys to remove, or `all` to start from an empty map (an import that replaces everything). */
  remove?: readonly SamlPropertyKey[] | 'all';
  /** Values to write (insert or overwrite). */
  set?: SamlProperties;
}

/**
 * Port: where each domain's SAML properties live. Properties are stored one row per key, so
 * concurrent writes of different keys never lose each other; `write` is atomic (all or nothing).
 * Implementations throw {@link SamlConfigError} `storage_full` when their disk is full,
 * `dependency_unavailable` while a database server they need is away (a retry later works), and
 * `store_failed` on any other failure.
 */
export interface SamlPropertyStore {
  /** The stored properties of `domain` (empty when none), in specification order. */
  get(domain: string): Promise<SamlProperties>;
  /** Applies `change` atomically and returns the properties as stored afterwards. */
  write(domain: string, change: SamlPropertyChange): Promise<SamlProperties>;
  /** Releases connections and files; idempotent. */
  close(): Promise<void>;
}

/**
 * Encodes one value for storage as JSON text (booleans stay booleans).
 * @throws SamlConfigError `store_failed` for an unknown key or a value that is not string or boolean
 */
export function encodeStoredValue(key: string, value: unknown): string {
  if (!isSamlPropertyKey(key)) {
    throw new SamlConfigError('store_failed', `cannot store unknown property ${JSON.stringify(key)}`);
  }
  if (typeof value !== 'string' && typeof value !== 'boolean') {
    throw new SamlConfigError(
      'store_failed',
      `cannot store ${key}: expected a string or boolean but received ${typeof value}`,
    );
  }
  return JSON.stringify(value);
}

/**
 * Decodes stored rows into a property map, skipping keys this version does not know.
 * @throws SamlConfigError `store_failed` for a corrupt row
 */
export function decodeStoredRows(rows: Iterable<{ key: string; value: string }>): SamlProperties {
  const properties: Record<string, string | boolean> = {};
  for (const row of rows) {
    if (!isSamlPropertyKey(row.key)) continue;
    let value: unknown;
    try {
      value = JSON.parse(row.value);
    } catch (error) {
      throw new SamlConfigError('store_failed', `stored value of ${row.key} is not JSON`, { cause: error });
    }
    if (typeof value !== 'string' && typeof value !== 'boolean') {
      throw new SamlConfigError('store_failed', `stored value of ${row.key} is neither string nor boolean`);
    }
    properties[row.key] = value;
  }
  return properties as SamlProperties;
}

/**
 * A full disk as the engines report it: SQLite `SQLITE_FULL`, PostgreSQL `53100` (disk_full), the
 * file system's `ENOSPC` or `EDQUOT`.
 */
function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_FULL' || code === '53100' || code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * Wraps an adapter failure in `store_failed` (`storage_full` when the disk is full), keeping
 * SamlConfigErrors as they are.
 */
export function storeFailure(error: unknown, what: string): SamlConfigError {
  if (error instanceof SamlConfigError) return error;
  if (isDiskFull(error)) {
    return new SamlConfigError('storage_full', `${what} failed: the database's disk is full`, {
      cause: error,
    });
  }
  return new SamlConfigError(
    'store_failed',
    `${what} failed: ${(error as Error)?.message ?? String(error)}`,
    { cause: error },
  );
}
