import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChatStore, createSqliteChatStore } from '@collab-suite/chat-domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'chat-sqlite-file-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function createRooms(store: ChatStore, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const now = new Date();
    const room = {
      id: randomUUID(),
      type: 'group' as const,
      name: `Room ${index}`,
      description: 'a description long enough to fill pages quickly',
      meetingId: null,
      createdAt: now,
      updatedAt: now,
      pictureUpdatedAt: null,
    };
    await store.insertRoom(room, [{ userId: randomUUID(), owner: true, joinedAt: now }]);
  }
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(50);
  }
  return condition();
}

describe('SQLite chat store on a file', () => {
  it('is refused to a second opener while the first has the file, and opens once it is closed', async () => {
    const filename = join(folder, 'owned.db');
    const first = createSqliteChatStore({ filename });
    expect(() => createSqliteChatStore({ filename })).toThrow(
      expect.objectContaining({
        code: 'dependency_failed',
        message: expect.stringContaining('another one has it'),
      }),
    );
    await createRooms(first, 1);
    await first.close();
    const second = createSqliteChatStore({ filename });
    expect(await second.listPendingBlobDeletions(1)).toEqual([]);
    await second.close();
  });

  it('copies committed writes into the database file from its own thread', async () => {
    const filename = join(folder, 'checkpointed.db');
    const store = createSqliteChatStore({ filename, checkpointIntervalMs: 50 });
    try {
      const before = (await stat(filename)).size;
      await createRooms(store, 300);
      const grown = await waitFor(async () => (await stat(filename)).size > before + 64 * 1024, 5000);
      expect(grown).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('leaves the writes in the log while no checkpoint is due: the writer never checkpoints itself', async () => {
    const filename = join(folder, 'not-checkpointed.db');
    const store = createSqliteChatStore({ filename, checkpointIntervalMs: 3_600_000 });
    try {
      const before = (await stat(filename)).size;
      await createRooms(store, 300);
      await sleep(300);
      expect((await stat(filename)).size).toBe(before);
      expect((await stat(`${filename}-wal`)).size).toBeGreaterThan(64 * 1024);
    } finally {
      await store.close();
    }
    // Closing checkpoints what was left: the data is all in the file and reads back.
    const reopened = createSqliteChatStore({ filename });
    expect((await reopened.listRoomsOfUser(randomUUID(), { members: false, settings: false })).length).toBe(
      0,
    );
    await reopened.close();
    expect((await stat(filename)).size).toBeGreaterThan(64 * 1024);
  });
});
