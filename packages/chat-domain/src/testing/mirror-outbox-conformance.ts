import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatStore } from '../ports/chat-store.js';
import type { MirrorOperation, OutboxMessage } from '../ports/mirror-outbox.js';
import { attachmentFixture, memberFixture, roomFixture } from './fixtures.js';

const t0 = Date.parse('2024-05-01T10:00:00.000Z');
const minute = 60_000;

/** A system message of `roomId` whose value names it, for telling queued messages apart. */
function noticeFixture(roomId: string, value: string): OutboxMessage {
  return {
    kind: 'message',
    id: randomUUID(),
    message: {
      type: 'ROOM_SYSTEM_MESSAGE',
      roomId,
      senderId: randomUUID(),
      operation: 'roomNameChanged',
      fields: { value },
    },
  };
}

/**
 * Registers the behaviour of the mirror outbox every {@link ChatStore} must have. `open` returns a
 * fresh store with an empty outbox and no rooms for each test; the suite closes it afterwards.
 */
export function describeMirrorOutboxConformance(name: string, open: () => Promise<ChatStore>): void {
  describe(`MirrorOutbox conformance: ${name}`, () => {
    let store: ChatStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });
    const claim = (owner: string, at = t0, limit = 10) =>
      store.claimMirrorOperations({ owner, limit, now: new Date(at), leaseUntil: new Date(at + minute) });

    it('gives back queued operations oldest first, with their attempts, until they are forgotten', async () => {
      const roomId = randomUUID();
      const operations: MirrorOperation[] = [{ kind: 'room', roomId }, noticeFixture(roomId, 'Ünïcode <&>')];
      await store.enqueueMirrorOperations(operations, new Date(t0));
      await store.enqueueMirrorOperations([{ kind: 'room', roomId: randomUUID() }], new Date(t0 + 1));
      expect(await store.countMirrorOperations()).toBe(3);
      const first = await claim('drainer-a', t0, 2);
      expect(first.map((entry) => entry.operation)).toEqual(operations);
      expect(first[0]?.attempts).toBe(0);
      expect(first[0]?.createdAt).toEqual(new Date(t0));
      await store.recordMirrorFailure(first[0]?.sequence ?? -1);
      await store.recordMirrorFailure(first[0]?.sequence ?? -1);
      expect((await claim('drainer-a'))[0]?.attempts).toBe(2);
      await store.forgetMirrorOperations(first.map((entry) => entry.sequence));
      const rest = await claim('drainer-a');
      expect(rest).toHaveLength(1);
      expect((rest[0]?.sequence ?? 0) > (first[1]?.sequence ?? 0)).toBe(true);
      expect(await store.countMirrorOperations()).toBe(1);
    });

    it('lets one drainer hold the queue until its lease expires', async () => {
      await store.enqueueMirrorOperations([{ kind: 'room', roomId: randomUUID() }], new Date(t0));
      expect(await claim('drainer-a', t0)).toHaveLength(1);
      expect(await claim('drainer-b', t0 + 1000)).toEqual([]);
      expect(await claim('drainer-a', t0 + 2000)).toHaveLength(1);
      expect(await claim('drainer-b', t0 + 2000 + minute)).toHaveLength(1);
      expect(await claim('drainer-a', t0 + 3000 + minute)).toEqual([]);
    });

    it('queues a room operation with each change a mirror follows, only while switched on', async () => {
      const [alice, bob, carol] = [randomUUID(), randomUUID(), randomUUID()];
      const before = roomFixture(t0);
      await store.insertRoom(before, [memberFixture(alice, true, t0)]);
      expect(await store.countMirrorOperations()).toBe(0);
      await store.setMirrorOutboxEnabled(true);
      const room = roomFixture(t0);
      await store.insertRoom(room, [memberFixture(alice, true, t0), memberFixture(bob, false, t0)]);
      const roomIds = async () => {
        const entries = await claim('drainer-a', t0, 1000);
        await store.forgetMirrorOperations(entries.map((entry) => entry.sequence));
        return [
          ...new Set(entries.map((entry) => (entry.operation.kind === 'room' ? entry.operation.roomId : ''))),
        ];
      };
      expect(await roomIds()).toEqual([room.id]);
      await store.updateRoom(room.id, { updatedAt: new Date(t0 + 1) });
      await store.setMuted(room.id, bob, true);
      expect(await store.countMirrorOperations()).toBe(0);
      await store.updateRoom(room.id, { name: 'Renamed', updatedAt: new Date(t0 + 2) });
      expect(await roomIds()).toEqual([room.id]);
      await store.insertMember(room.id, memberFixture(carol, false, t0));
      expect(await roomIds()).toEqual([room.id]);
      expect(await store.setOwner(room.id, carol, false)).toBe(true);
      expect(await store.countMirrorOperations()).toBe(0);
      await store.setOwner(room.id, carol, true);
      expect(await roomIds()).toEqual([room.id]);
      await store.deleteMember(room.id, carol);
      expect(await roomIds()).toEqual([room.id]);
      await store.withRoomLock(before.id, (locked) => locked.deleteRoom());
      expect(await roomIds()).toEqual([before.id]);
      await store.setMirrorOutboxEnabled(false);
      await store.deleteRoom(room.id);
      expect(await store.countMirrorOperations()).toBe(0);
    });

    it('queues the messages handed to a write after its room operations, only when the write happens and only while switched on', async () => {
      const [alice, bob] = [randomUUID(), randomUUID()];
      const room = roomFixture(t0);
      const missingRoomId = randomUUID();
      const drained = async () => {
        const entries = await claim('drainer-a', t0, 1000);
        await store.forgetMirrorOperations(entries.map((entry) => entry.sequence));
        return entries.map((entry) =>
          entry.operation.kind === 'room'
            ? `room ${entry.operation.roomId === room.id ? 'same' : entry.operation.roomId}`
            : String(
                entry.operation.message.type === 'ROOM_SYSTEM_MESSAGE' &&
                  entry.operation.message.fields.value,
              ),
        );
      };
      await store.insertRoom(room, [memberFixture(alice, true, t0)], undefined, [
        noticeFixture(room.id, 'off'),
      ]);
      await store.queueMirrorMessages([noticeFixture(room.id, 'off')]);
      expect(await store.countMirrorOperations()).toBe(0);

      await store.setMirrorOutboxEnabled(true);
      const other = roomFixture(t0);
      await store.insertRoom(other, [memberFixture(alice, true, t0)], undefined, [
        noticeFixture(other.id, 'created 1'),
        noticeFixture(other.id, 'created 2'),
      ]);
      const created = await drained();
      expect(created.slice(-2)).toEqual(['created 1', 'created 2']);
      expect(created.slice(0, -2).every((entry) => entry.startsWith('room '))).toBe(true);

      await store.insertMember(room.id, memberFixture(bob, false, t0), undefined, [
        noticeFixture(room.id, 'added'),
      ]);
      expect(await drained()).toEqual(['room same', 'added']);
      await expect(
        store.insertMember(room.id, memberFixture(bob, false, t0), undefined, [
          noticeFixture(room.id, 'twice'),
        ]),
      ).rejects.toMatchObject({ code: 'already_member' });
      expect(await store.deleteMember(room.id, randomUUID(), [noticeFixture(room.id, 'nobody')])).toBe(false);
      expect(await store.deletePicture(room.id, new Date(t0), [noticeFixture(room.id, 'no picture')])).toBe(
        false,
      );
      expect(
        await store.updateRoom(missingRoomId, { name: 'x', updatedAt: new Date(t0) }, [
          noticeFixture(room.id, 'gone'),
        ]),
      ).toBeUndefined();
      await expect(
        store.insertAttachment(attachmentFixture(missingRoomId, t0), [noticeFixture(room.id, 'gone')]),
      ).rejects.toMatchObject({ code: 'room_not_found' });
      expect(await store.countMirrorOperations()).toBe(0);

      await store.updateRoom(room.id, { name: 'Renamed', updatedAt: new Date(t0 + 1) }, [
        noticeFixture(room.id, 'renamed'),
      ]);
      expect(await drained()).toEqual(['room same', 'renamed']);
      await store.insertAttachment(attachmentFixture(room.id, t0), [noticeFixture(room.id, 'attached')]);
      await store.setPicture(
        {
          roomId: room.id,
          blobKey: `pictures/${room.id}/1`,
          name: 'p.png',
          mimeType: 'image/png',
          size: 1,
          userId: alice,
          updatedAt: new Date(t0 + 2),
        },
        [noticeFixture(room.id, 'pictured')],
      );
      await store.deletePicture(room.id, new Date(t0 + 3), [noticeFixture(room.id, 'unpictured')]);
      await store.queueMirrorMessages([
        noticeFixture(room.id, 'forward 1'),
        noticeFixture(room.id, 'forward 2'),
      ]);
      expect(await drained()).toEqual(['attached', 'pictured', 'unpictured', 'forward 1', 'forward 2']);
      await store.withRoomLock(room.id, (locked) =>
        locked.deleteMember(bob, [noticeFixture(room.id, 'removed')]),
      );
      expect(await drained()).toEqual(['room same', 'removed']);
    });

    it('lists every room id in order, a page at a time', async () => {
      const ids: string[] = [];
      for (let index = 0; index < 5; index++) {
        const room = roomFixture(t0 + index);
        ids.push(room.id);
        await store.insertRoom(room, []);
      }
      ids.sort();
      const firstPage = await store.listRoomIds({ limit: 3 });
      expect(firstPage).toEqual(ids.slice(0, 3));
      expect(await store.listRoomIds({ limit: 3, after: firstPage.at(-1) })).toEqual(ids.slice(3));
    });
  });
}
