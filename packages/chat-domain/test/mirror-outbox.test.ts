import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryChatStore } from '@collab-suite/chat-domain';
import { openPostgresChatStore } from '@collab-suite/chat-domain/postgres';
import { createSqliteChatStore } from '@collab-suite/chat-domain/sqlite';
import { memberFixture, roomFixture } from '@collab-suite/chat-domain/testing';
import { describeMirrorOutboxConformance } from '@collab-suite/chat-domain/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTestDatabaseUrl, truncateChatTables } from './postgres-helper.js';

// The outbox alone on every store, with a PostgreSQL database of its own (the full store suite in
// stores.test.ts runs it too, on the shared one).
describeMirrorOutboxConformance('memory', async () => createMemoryChatStore());

let folder = '';
let fileCount = 0;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mirror-outbox-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describeMirrorOutboxConformance('sqlite file, writes on a writer thread', async () => {
  fileCount += 1;
  return createSqliteChatStore({ filename: join(folder, `chat-${fileCount}.db`) });
});

let postgresUrl = '';
describeMirrorOutboxConformance('postgresql', async () => {
  postgresUrl ||= await chatTestDatabaseUrl('xmpp_mirror_outbox');
  const store = await openPostgresChatStore({ connectionString: postgresUrl, maxConnections: 4 });
  await truncateChatTables(postgresUrl);
  return store;
});

describe('postgresql room lock', () => {
  it('rolls a queued message back with the change it goes with', async () => {
    postgresUrl ||= await chatTestDatabaseUrl('xmpp_mirror_outbox');
    await truncateChatTables(postgresUrl);
    const store = await openPostgresChatStore({ connectionString: postgresUrl, maxConnections: 2 });
    try {
      await store.setMirrorOutboxEnabled(true);
      const room = roomFixture(0);
      await store.insertRoom(room, [memberFixture(randomUUID(), true, 0)]);
      const queuedBefore = await store.countMirrorOperations();
      const newcomer = randomUUID();
      const failure = new Error('the work failed after its write');
      await expect(
        store.withRoomLock(room.id, async (locked) => {
          await locked.insertMember(memberFixture(newcomer, false, 0), undefined, [
            {
              kind: 'message',
              id: randomUUID(),
              message: {
                type: 'ROOM_SYSTEM_MESSAGE',
                roomId: room.id,
                senderId: newcomer,
                operation: 'memberAdded',
                fields: { userId: newcomer },
              },
            },
          ]);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await store.getMember(room.id, newcomer)).toBeUndefined();
      expect(await store.countMirrorOperations()).toBe(queuedBefore);
    } finally {
      await store.close();
    }
  });
});
