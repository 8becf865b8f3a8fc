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

describe('postgresql mirror lease fencing', () => {
  it('refuses what a drainer does under a lease that passed to another since, and lets the new holder act', async () => {
    postgresUrl ||= await chatTestDatabaseUrl('xmpp_mirror_outbox');
    await truncateChatTables(postgresUrl);
    const store = await openPostgresChatStore({ connectionString: postgresUrl, maxConnections: 2 });
    try {
      await store.enqueueMirrorOperations(
        [
          { kind: 'room', roomId: randomUUID() },
          { kind: 'room', roomId: randomUUID() },
        ],
        new Date(),
      );
      const start = Date.UTC(2031, 0, 1);
      const at = (ms: number) => new Date(start + ms);
      const claim = (owner: string, ms: number) =>
        store.claimMirrorOperations({ owner, limit: 10, now: at(ms), leaseUntil: at(ms + 1000) });
      // A claims, then freezes past its lease; B takes the queue over: a newer token.
      const byA = await claim('drainer-a', 0);
      const leaseA = { owner: 'drainer-a', fence: byA[0]?.fence ?? -1 };
      expect(byA).toHaveLength(2);
      // A renewing within its lease keeps its token.
      expect((await claim('drainer-a', 500))[0]?.fence).toBe(leaseA.fence);
      const byB = await claim('drainer-b', 2000);
      const leaseB = { owner: 'drainer-b', fence: byB[0]?.fence ?? -1 };
      expect(leaseB.fence).toBeGreaterThan(leaseA.fence);
      const [first, second] = byB.map((entry) => entry.sequence) as [number, number];

      // A resumes: its writes are refused and change nothing.
      expect(await store.recordMirrorFailure(first, leaseA)).toBe(false);
      expect(await store.forgetMirrorOperations([first, second], leaseA)).toBe(false);
      expect(await store.countMirrorOperations()).toBe(2);
      expect((await claim('drainer-b', 2100)).map((entry) => entry.attempts)).toEqual([0, 0]);
      // Nor may it claim again while B's lease holds.
      expect(await claim('drainer-a', 2200)).toEqual([]);

      expect(await store.recordMirrorFailure(first, leaseB)).toBe(true);
      expect(await store.forgetMirrorOperations([second], leaseB)).toBe(true);
      expect((await claim('drainer-b', 2300)).map((entry) => [entry.sequence, entry.attempts])).toEqual([
        [first, 1],
      ]);
      // A lease that ran out and is taken again, even by the same owner, gets a newer token.
      const again = await claim('drainer-b', 5000);
      expect(again[0]?.fence).toBeGreaterThan(leaseB.fence);
      expect(await store.forgetMirrorOperations([first], leaseB)).toBe(false);
    } finally {
      await store.close();
    }
  });
});
