import { describe, expect, it } from 'vitest';
import { openPostgresChatStore } from '../src/postgres.js';
import { chatTestDatabaseUrl } from './postgres-helper.js';

describe('PostgreSQL chat store pool statistics', () => {
  it('reports open, idle and waiting connections of its pool', async () => {
    const url = await chatTestDatabaseUrl('api_desc_chat_pool');
    const store = await openPostgresChatStore({ connectionString: url, maxConnections: 1 });
    try {
      expect(store.poolStats()).toEqual({ total: 1, idle: 1, waiting: 0 });
      const reads = Array.from({ length: 4 }, () => store.listPendingBlobDeletions(1));
      // One connection at most: at least three of the four reads wait for it.
      const busy = store.poolStats();
      expect(busy.total).toBe(1);
      expect(busy.waiting).toBeGreaterThanOrEqual(3);
      await Promise.all(reads);
      expect(store.poolStats()).toEqual({ total: 1, idle: 1, waiting: 0 });
    } finally {
      await store.close();
    }
  });
});
