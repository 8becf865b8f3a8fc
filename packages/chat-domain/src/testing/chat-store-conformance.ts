import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatStore } from '../ports/chat-store.js';
import { attachmentFixture, memberFixture, roomFixture } from './fixtures.js';
import { describeMeetingStoreConformance } from './meeting-store-conformance.js';
import { describeMirrorOutboxConformance } from './mirror-outbox-conformance.js';
import { describeRoomLockConformance } from './room-lock-conformance.js';

const t0 = Date.parse('2024-05-01T10:00:00.000Z');

/**
 * Registers the behaviour every {@link ChatStore} must have. `open` returns a fresh, empty store
 * for each test; the suite closes it afterwards.
 */
export function describeChatStoreConformance(name: string, open: () => Promise<ChatStore>): void {
  describe(`ChatStore conformance: ${name}`, () => {
    let store: ChatStore;
    const alice = randomUUID();
    const bob = randomUUID();
    const carol = randomUUID();
    const groupOf = async (at = t0) => {
      const room = roomFixture(at);
      await store.insertRoom(room, [memberFixture(alice, true, at), memberFixture(bob, false, at + 1)]);
      return room;
    };

    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('round-trips a room with exact dates and null fields', async () => {
      const room = await groupOf();
      expect(await store.getRoom(room.id)).toEqual(room);
      expect(await store.getRoom(randomUUID())).toBeUndefined();
    });

    it('refuses a second one_to_one room with the same key and finds the first', async () => {
      const key = `${alice}:${bob}`;
      const room = roomFixture(t0, { type: 'one_to_one', name: '', description: '' });
      await store.insertRoom(room, [memberFixture(alice, true, t0), memberFixture(bob, true, t0)], key);
      await expect(store.insertRoom(roomFixture(t0), [], key)).rejects.toMatchObject({
        code: 'one_to_one_exists',
      });
      expect((await store.findOneToOneRoom(key))?.id).toBe(room.id);
      expect(await store.findOneToOneRoom(`${alice}:${carol}`)).toBeUndefined();
    });

    it('lists only the rooms of a user, oldest first, with what was asked for', async () => {
      const second = await groupOf(t0 + 1000);
      const first = await groupOf(t0);
      await store.insertRoom(roomFixture(t0 + 5), [memberFixture(carol, true, t0)]);
      await store.setMuted(second.id, bob, true);
      const plain = await store.listRoomsOfUser(bob, { members: false, settings: false });
      expect(plain.map((listing) => listing.room.id)).toEqual([first.id, second.id]);
      expect(plain[0]).not.toHaveProperty('members');
      expect(plain[0]).not.toHaveProperty('settings');
      const full = await store.listRoomsOfUser(bob, { members: true, settings: true });
      expect(full[0]?.members?.map((member) => [member.userId, member.owner])).toEqual([
        [alice, true],
        [bob, false],
      ]);
      expect(full[0]?.settings).toBeNull();
      expect(full[1]?.settings).toEqual({ muted: true, clearedAt: null });
      expect(await store.listRoomsOfUser(randomUUID(), { members: true, settings: true })).toEqual([]);
    });

    it('pages the rooms of a user oldest first, ties by id, and counts them', async () => {
      const rooms = [
        await groupOf(t0 + 3),
        await groupOf(t0),
        await groupOf(t0),
        await groupOf(t0 + 9),
        await groupOf(t0),
      ];
      const expected = [...rooms]
        .sort(
          (left, right) =>
            left.createdAt.getTime() - right.createdAt.getTime() || (left.id < right.id ? -1 : 1),
        )
        .map((room) => room.id);
      const seen: string[] = [];
      let after: { createdAt: Date; id: string } | undefined;
      for (;;) {
        const page = await store.listRoomsOfUser(
          bob,
          { members: true, settings: false },
          { limit: 2, after },
        );
        seen.push(...page.map((listing) => listing.room.id));
        expect(page.every((listing) => listing.members?.length === 2)).toBe(true);
        const last = page.at(-1);
        if (page.length < 2 || last === undefined) break;
        after = { createdAt: last.room.createdAt, id: last.room.id };
      }
      expect(seen).toEqual(expected);
      expect(await store.countRoomsOfUser(bob)).toBe(5);
      expect(await store.countRoomsOfUser(randomUUID())).toBe(0);
    });

    it('counts the rooms of a user after members leave and rooms are deleted', async () => {
      const [kept, left, deleted] = [await groupOf(t0), await groupOf(t0), await groupOf(t0)];
      expect(await store.countRoomsOfUser(bob)).toBe(3);
      expect(await store.deleteMember(left.id, bob)).toBe(true);
      expect(await store.deleteRoom(deleted.id)).toBe(true);
      expect(await store.countRoomsOfUser(bob)).toBe(1);
      expect(await store.countRoomsOfUser(alice)).toBe(2);
      expect(
        (await store.listRoomsOfUser(bob, { members: false, settings: false })).map(
          (listing) => listing.room.id,
        ),
      ).toEqual([kept.id]);
    });

    it('updates only the given fields and answers undefined for an unknown room', async () => {
      const room = await groupOf();
      const updated = await store.updateRoom(room.id, { name: 'Renamed', updatedAt: new Date(t0 + 10) });
      expect(updated).toEqual({ ...room, name: 'Renamed', updatedAt: new Date(t0 + 10) });
      expect(await store.updateRoom(randomUUID(), { name: 'x', updatedAt: new Date(t0) })).toBeUndefined();
    });

    it('adds members once, refuses duplicates and rooms that do not exist', async () => {
      const room = await groupOf();
      await store.insertMember(room.id, memberFixture(carol, false, t0 + 5), {
        muted: false,
        clearedAt: new Date(t0 + 5),
      });
      expect((await store.listMembers(room.id)).map((member) => member.userId)).toEqual([alice, bob, carol]);
      expect(await store.getSettings(room.id, carol)).toEqual({ muted: false, clearedAt: new Date(t0 + 5) });
      await expect(store.insertMember(room.id, memberFixture(carol, false, t0))).rejects.toMatchObject({
        code: 'already_member',
      });
      await expect(store.insertMember(randomUUID(), memberFixture(carol, false, t0))).rejects.toMatchObject({
        code: 'room_not_found',
      });
    });

    it('lists members in join order, owners first among those who joined together, then by id', async () => {
      const room = roomFixture(t0);
      const [first, second] = [bob, carol].sort();
      await store.insertRoom(room, [
        memberFixture(second as string, false, t0),
        memberFixture(first as string, false, t0),
        memberFixture(alice, true, t0),
      ]);
      await store.insertMember(room.id, memberFixture(randomUUID(), true, t0 - 1));
      const order = (await store.listMembers(room.id)).slice(1).map((member) => member.userId);
      expect(order).toEqual([alice, first, second]);
      const listed = await store.listRoomsOfUser(alice, { members: true, settings: false });
      expect(listed[0]?.members?.slice(1).map((member) => member.userId)).toEqual([alice, first, second]);
    });

    it('lists members as they are after every membership change', async () => {
      const room = await groupOf();
      const listed = async () =>
        (await store.listRoomsOfUser(alice, { members: true, settings: false }))[0]?.members?.map(
          (member) => [member.userId, member.owner],
        );
      expect(await listed()).toEqual([
        [alice, true],
        [bob, false],
      ]);
      await store.insertMember(room.id, memberFixture(carol, false, t0 + 5));
      expect(await listed()).toEqual([
        [alice, true],
        [bob, false],
        [carol, false],
      ]);
      await store.setOwner(room.id, bob, true);
      await store.deleteMember(room.id, carol);
      expect(await listed()).toEqual([
        [alice, true],
        [bob, true],
      ]);
      await store.deleteRoom(room.id);
      expect(await listed()).toBeUndefined();
    });

    it('removes a member together with the member settings', async () => {
      const room = await groupOf();
      await store.setMuted(room.id, bob, true);
      expect(await store.deleteMember(room.id, bob)).toBe(true);
      expect(await store.deleteMember(room.id, bob)).toBe(false);
      expect(await store.getMember(room.id, bob)).toBeUndefined();
      expect(await store.getSettings(room.id, bob)).toBeUndefined();
      expect(await store.listRoomsOfUser(bob, { members: false, settings: false })).toEqual([]);
    });

    it('sets and clears the owner flag of members only', async () => {
      const room = await groupOf();
      expect(await store.setOwner(room.id, bob, true)).toBe(true);
      expect((await store.getMember(room.id, bob))?.owner).toBe(true);
      expect(await store.setOwner(room.id, bob, false)).toBe(true);
      expect((await store.getMember(room.id, bob))?.owner).toBe(false);
      expect(await store.setOwner(room.id, carol, true)).toBe(false);
    });

    it('reports whether mute changed and keeps clearedAt apart', async () => {
      const room = await groupOf();
      expect(await store.setMuted(room.id, bob, false)).toBe(false);
      expect(await store.setMuted(room.id, bob, true)).toBe(true);
      expect(await store.setMuted(room.id, bob, true)).toBe(false);
      await store.setClearedAt(room.id, bob, new Date(t0 + 7));
      expect(await store.getSettings(room.id, bob)).toEqual({ muted: true, clearedAt: new Date(t0 + 7) });
      expect(await store.setMuted(room.id, bob, false)).toBe(true);
      expect(await store.getSettings(room.id, bob)).toEqual({ muted: false, clearedAt: new Date(t0 + 7) });
      await expect(store.setMuted(randomUUID(), bob, true)).rejects.toMatchObject({ code: 'room_not_found' });
      await expect(store.setClearedAt(randomUUID(), bob, new Date(t0))).rejects.toMatchObject({
        code: 'room_not_found',
      });
    });

    it('replaces and deletes pictures, stamping the room and queueing old bytes', async () => {
      const room = await groupOf();
      const picture = {
        roomId: room.id,
        blobKey: 'pictures/a',
        name: 'a.png',
        mimeType: 'image/png',
        size: 3,
        userId: alice,
      };
      await store.setPicture({ ...picture, updatedAt: new Date(t0 + 10) });
      expect(await store.getRoom(room.id)).toMatchObject({
        pictureUpdatedAt: new Date(t0 + 10),
        updatedAt: new Date(t0 + 10),
      });
      await store.setPicture({ ...picture, blobKey: 'pictures/b', updatedAt: new Date(t0 + 20) });
      expect(await store.getPicture(room.id)).toEqual({
        ...picture,
        blobKey: 'pictures/b',
        updatedAt: new Date(t0 + 20),
      });
      expect(await store.listPendingBlobDeletions(10)).toEqual(['pictures/a']);
      expect(await store.deletePicture(room.id, new Date(t0 + 30))).toBe(true);
      expect(await store.deletePicture(room.id, new Date(t0 + 30))).toBe(false);
      expect(await store.getRoom(room.id)).toMatchObject({
        pictureUpdatedAt: null,
        updatedAt: new Date(t0 + 30),
      });
      expect((await store.listPendingBlobDeletions(10)).sort()).toEqual(['pictures/a', 'pictures/b']);
      await expect(
        store.setPicture({ ...picture, roomId: randomUUID(), updatedAt: new Date(t0) }),
      ).rejects.toMatchObject({
        code: 'room_not_found',
      });
    });

    it('pages attachments newest first with ties broken by id', async () => {
      const room = await groupOf();
      const ids = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'];
      const tiedA = attachmentFixture(room.id, t0 + 5, { id: ids[0] });
      const tiedB = attachmentFixture(room.id, t0 + 5, { id: ids[1] });
      const oldest = attachmentFixture(room.id, t0);
      const newest = attachmentFixture(room.id, t0 + 9, { area: '15x20' });
      for (const attachment of [tiedA, oldest, newest, tiedB]) await store.insertAttachment(attachment);
      const all = await store.listAttachments(room.id, { limit: 10 });
      expect(all).toEqual([newest, tiedB, tiedA, oldest]);
      const next = await store.listAttachments(room.id, {
        limit: 2,
        after: { createdAt: tiedB.createdAt, id: tiedB.id },
      });
      expect(next.map((attachment) => attachment.id)).toEqual([tiedA.id, oldest.id]);
      expect(await store.getAttachment(newest.id)).toEqual(newest);
      await expect(store.insertAttachment(attachmentFixture(randomUUID(), t0))).rejects.toMatchObject({
        code: 'room_not_found',
      });
    });

    it('deletes an attachment once and queues its bytes', async () => {
      const room = await groupOf();
      const attachment = attachmentFixture(room.id, t0);
      await store.insertAttachment(attachment);
      expect(await store.deleteAttachment(attachment.id)).toBe(true);
      expect(await store.deleteAttachment(attachment.id)).toBe(false);
      expect(await store.getAttachment(attachment.id)).toBeUndefined();
      expect(await store.listPendingBlobDeletions(10)).toEqual([attachment.blobKey]);
    });

    it('finds which blob keys attachments and pictures point at', async () => {
      const room = await groupOf();
      const attachment = attachmentFixture(room.id, t0);
      await store.insertAttachment(attachment);
      const pictureKey = `pictures/${room.id}/${randomUUID()}`;
      await store.setPicture({
        roomId: room.id,
        blobKey: pictureKey,
        name: 'p.png',
        mimeType: 'image/png',
        size: 3,
        userId: alice,
        updatedAt: new Date(t0),
      });
      const stray = `attachments/${randomUUID()}`;
      const found = await store.findReferencedBlobKeys([stray, attachment.blobKey, pictureKey]);
      expect([...found].sort()).toEqual([attachment.blobKey, pictureKey].sort());
      expect(await store.findReferencedBlobKeys([])).toEqual([]);
      await store.deleteAttachment(attachment.id);
      expect(await store.findReferencedBlobKeys([attachment.blobKey])).toEqual([]);
    });

    it('deletes a room with everything in it and queues all its bytes', async () => {
      const room = await groupOf();
      const attachment = attachmentFixture(room.id, t0);
      await store.insertAttachment(attachment);
      await store.setPicture({
        roomId: room.id,
        blobKey: 'pictures/p',
        name: 'p',
        mimeType: 'image/png',
        size: 1,
        userId: alice,
        updatedAt: new Date(t0),
      });
      await store.setClearedAt(room.id, bob, new Date(t0));
      const survivor = await groupOf();
      expect(await store.deleteRoom(room.id)).toBe(true);
      expect(await store.deleteRoom(room.id)).toBe(false);
      expect(await store.getRoom(room.id)).toBeUndefined();
      expect(await store.listMembers(room.id)).toEqual([]);
      expect(await store.getSettings(room.id, bob)).toBeUndefined();
      expect(await store.getPicture(room.id)).toBeUndefined();
      expect(await store.getAttachment(attachment.id)).toBeUndefined();
      expect((await store.listPendingBlobDeletions(10)).sort()).toEqual([attachment.blobKey, 'pictures/p']);
      expect(
        (await store.listRoomsOfUser(bob, { members: false, settings: false })).map(
          (listing) => listing.room.id,
        ),
      ).toEqual([survivor.id]);
    });

    it('frees the one_to_one key when the room is deleted', async () => {
      const key = `${alice}:${carol}`;
      const room = roomFixture(t0, { type: 'one_to_one', name: '', description: '' });
      await store.insertRoom(room, [memberFixture(alice, true, t0)], key);
      await store.deleteRoom(room.id);
      expect(await store.findOneToOneRoom(key)).toBeUndefined();
      await store.insertRoom(roomFixture(t0, { type: 'one_to_one', name: '', description: '' }), [], key);
    });

    it('lists pending blob deletions up to a limit and forgets them', async () => {
      const room = await groupOf();
      const attachments = [0, 1, 2].map((index) => attachmentFixture(room.id, t0 + index));
      for (const attachment of attachments) {
        await store.insertAttachment(attachment);
        await store.deleteAttachment(attachment.id);
      }
      const firstTwo = await store.listPendingBlobDeletions(2);
      expect(firstTwo).toHaveLength(2);
      await store.forgetPendingBlobDeletions(firstTwo);
      expect(await store.listPendingBlobDeletions(10)).toHaveLength(1);
    });

    it('closes idempotently', async () => {
      await store.close();
      await store.close();
      store = await open();
    });
  });
  describeMeetingStoreConformance(name, open);
  describeMirrorOutboxConformance(name, open);
  describeRoomLockConformance(name, open);
}
