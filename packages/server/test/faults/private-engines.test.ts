import { startPrivatePostgres, startPrivateRedis } from '@collab-suite/chat-domain/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';

describe('the fault tests own their engines', () => {
  it('a private PostgreSQL keeps its data across a fast restart and a kill', async () => {
    const postgres = await startPrivatePostgres();
    try {
      const query = async (sql: string) => {
        const client = new pg.Client({ connectionString: postgres.url });
        await client.connect();
        try {
          return await client.query(sql);
        } finally {
          await client.end();
        }
      };
      await query('CREATE TABLE kept (value int); INSERT INTO kept VALUES (7)');
      await postgres.restart();
      expect((await query('SELECT value FROM kept')).rows).toEqual([{ value: 7 }]);
      await postgres.stop('kill');
      await expect(query('SELECT 1')).rejects.toThrow();
      await postgres.start();
      expect((await query('SELECT value FROM kept')).rows).toEqual([{ value: 7 }]);
    } finally {
      await postgres.destroy();
    }
  });

  it('a private Redis with an append-only file keeps its keys across a kill', async () => {
    const redis = await startPrivateRedis({ appendOnly: true });
    const client = new Redis(redis.url, { maxRetriesPerRequest: null });
    client.on('error', () => {});
    try {
      // appendfsync always: the write is on disk once answered.
      await client.set('kept', 'yes');
      await redis.restart();
      expect(await client.get('kept')).toBe('yes');
    } finally {
      client.disconnect();
      await redis.stop();
    }
  });
});
