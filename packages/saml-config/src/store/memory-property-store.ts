import { orderProperties } from '../model/defaults.js';
import type { SamlProperties } from '../model/property-definitions.js';
import { decodeStoredRows, encodeStoredValue, type SamlPropertyStore } from './property-store.js';

/** In-memory {@link SamlPropertyStore}: for tests and single-process demos; nothing survives a restart. */
export function createMemorySamlPropertyStore(): SamlPropertyStore {
  const domains = new Map<string, Map<string, string>>();
  const read = (domain: string): SamlProperties =>
    orderProperties(
      decodeStoredRows(
        [...(domains.get(domain) ?? new Map<string, string>())].map(([key, value]) => ({ key, value })),
      ),
    );
  return {
    async get(domain) {
      return read(domain);
    },
    async write(domain, change) {
      const next = change.remove === 'all' ? new Map<string, string>() : new Map(domains.get(domain));
      if (Array.isArray(change.remove)) for (const key of change.remove) next.delete(key);
      for (const [key, value] of Object.entries(change.set ?? {}))
        next.set(key, encodeStoredValue(key, value));
      if (next.size === 0) domains.delete(domain);
      else domains.set(domain, next);
      return read(domain);
    },
    async close() {},
  };
}
