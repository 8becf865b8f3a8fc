import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteChatStore } from '@collab-suite/chat-domain/sqlite';
import { memberFixture, roomFixture } from '@collab-suite/chat-domain/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventLoopTicks } from '../../../test-support/event-loop-ticks.js';

const ROOMS = 1000;
const MEMBERS_PER_ROOM = 128;

describe('SQLite room listing of a user in hundreds of full rooms', () => {
  let folder = '';
  let filename = '';
  const userId = randomUUID();
  /** Each room's member ids in join order, the listing user first. */
  const expected = new Map<string, string[]>();

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'chat-listing-'));
    filename = join(folder, 'chat.db');
    const seeding = createSqliteChatStore({ filename, writerThread: false });
    const start = Date.now() - 86_400_000;
    for (let index = 0; index < ROOMS; index += 1) {
      const room = roomFixture(start + index * 1000, { name: `Room ${index}` });
      const memberIds = [userId, ...Array.from({ length: MEMBERS_PER_ROOM - 1 }, () => randomUUID())];
      const members = memberIds.map((memberId, order) =>
        memberFixture(memberId, order === 0, room.createdAt.getTime() + order),
      );
      await seeding.insertRoom(room, members);
      expected.set(room.id, memberIds);
    }
    await seeding.close();
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('reads every member list on a cold start, letting a 1 ms timer fire between batches', async () => {
    const store = createSqliteChatStore({ filename });
    try {
      const probe = await eventLoopTicks(() =>
        store.listRoomsOfUser(userId, { members: true, settings: true }),
      );
      const listed = probe.result;
      expect(listed).toHaveLength(ROOMS);
      expect(listed.map((listing) => listing.room.name)).toEqual(
        Array.from({ length: ROOMS }, (_, index) => `Room ${index}`),
      );
      for (const listing of listed) {
        expect(listing.members?.map((member) => member.userId)).toEqual(expected.get(listing.room.id));
        expect(listing.members?.[0]).toEqual({ userId, owner: true });
        expect(listing.settings).toBeNull();
      }
      // Read in one go, the 128 000 member rows would hold the event loop for the whole listing.
      expect(probe.ticks).toBeGreaterThanOrEqual(2);
      expect(probe.longestGapMs).toBeLessThan(probe.durationMs / 2);
      const cached = await store.listRoomsOfUser(userId, { members: true, settings: true });
      expect(cached).toEqual(listed);
    } finally {
      await store.close();
    }
  });

  it('lists a room whose members changed after a cold listing with its new members', async () => {
    const store = createSqliteChatStore({ filename });
    try {
      const [first] = await store.listRoomsOfUser(userId, { members: true, settings: false });
      const roomId = first?.room.id ?? '';
      const newcomer = randomUUID();
      await store.insertMember(roomId, memberFixture(newcomer, false, Date.now()));
      const listed = await store.listRoomsOfUser(userId, { members: true, settings: false });
      const members = listed.find((listing) => listing.room.id === roomId)?.members ?? [];
      expect(members.map((member) => member.userId)).toEqual([...(expected.get(roomId) ?? []), newcomer]);
      await store.deleteMember(roomId, newcomer);
    } finally {
      await store.close();
    }
  });
});
