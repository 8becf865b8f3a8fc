import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryChatStore } from '@collab-suite/chat-domain';
import { openPostgresChatStore } from '@collab-suite/chat-domain/postgres';
import { createSqliteChatStore } from '@collab-suite/chat-domain/sqlite';
import { describeChatStoreConformance } from '@collab-suite/chat-domain/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTestDatabaseUrl, truncateChatTables } from './postgres-helper.js';

describeChatStoreConformance('memory', async () => createMemoryChatStore());

describeChatStoreConformance('sqlite in memory', async () => createSqliteChatStore({ filename: ':memory:' }));

let folder = '';
let fileCount = 0;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'chat-store-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describeChatStoreConformance('sqlite file', async () => {
  fileCount += 1;
  return createSqliteChatStore({ filename: join(folder, `chat-${fileCount}.db`) });
});

describeChatStoreConformance('sqlite file, writes on the calling thread', async () => {
  fileCount += 1;
  return createSqliteChatStore({ filename: join(folder, `chat-${fileCount}.db`), writerThread: false });
});

let postgresUrl = '';
describeChatStoreConformance('postgresql', async () => {
  postgresUrl ||= await chatTestDatabaseUrl();
  const store = await openPostgresChatStore({ connectionString: postgresUrl, maxConnections: 4 });
  await truncateChatTables(postgresUrl);
  return store;
});

describe('schema migrations', () => {
  it('reopening a SQLite file keeps its data and does not migrate twice', async () => {
    const filename = join(folder, 'reopen.db');
    const first = createSqliteChatStore({ filename });
    const room = {
      id: '6f1c1d5e-55a5-4d55-9a3c-3f0f2b1a7c10',
      type: 'group' as const,
      name: 'Kept',
      description: '',
      meetingId: null,
      createdAt: new Date(1000),
      updatedAt: new Date(1000),
      pictureUpdatedAt: null,
    };
    await first.insertRoom(room, []);
    await first.close();
    const second = createSqliteChatStore({ filename });
    expect(await second.getRoom(room.id)).toEqual(room);
    await second.close();
  });

  it('two PostgreSQL stores opening at once both succeed', async () => {
    postgresUrl ||= await chatTestDatabaseUrl();
    const stores = await Promise.all([
      openPostgresChatStore({ connectionString: postgresUrl, maxConnections: 1 }),
      openPostgresChatStore({ connectionString: postgresUrl, maxConnections: 1 }),
    ]);
    await Promise.all(stores.map((store) => store.close()));
  });
});
