import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatStore } from '../ports/chat-store.js';
import { attachmentFixture, memberFixture, roomFixture } from './fixtures.js';

const t0 = Date.parse('2024-05-01T10:00:00.000Z');

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * Registers the behaviour of {@link ChatStore.withRoomLock} every store must have, within one store
 * object. (Exclusion across processes is a property of shared stores and is tested with two of them.)
 */
export function describeRoomLockConformance(name: string, open: () => Promise<ChatStore>): void {
  describe(`ChatStore room lock conformance: ${name}`, () => {
    let store: ChatStore;
    const alice = randomUUID();
    const bob = randomUUID();
    const carol = randomUUID();
    const groupOf = async () => {
      const room = roomFixture(t0);
      await store.insertRoom(room, [memberFixture(alice, true, t0), memberFixture(bob, false, t0 + 1)]);
      return room;
    };

    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('hands the room and reads and writes its members, seen by the store afterwards', async () => {
      const room = await groupOf();
      const seen = await store.withRoomLock(room.id, async (locked) => {
        expect(locked.room).toEqual(room);
        expect(await locked.getMember(bob)).toEqual(memberFixture(bob, false, t0 + 1));
        await locked.insertMember(memberFixture(carol, false, t0 + 2), {
          muted: false,
          clearedAt: new Date(t0 + 2),
        });
        await expect(locked.insertMember(memberFixture(carol, false, t0 + 3))).rejects.toMatchObject({
          code: 'already_member',
        });
        expect(await locked.setOwner(carol, true)).toBe(true);
        expect(await locked.setOwner(randomUUID(), true)).toBe(false);
        expect(await locked.deleteMember(bob)).toBe(true);
        expect(await locked.deleteMember(bob)).toBe(false);
        return (await locked.listMembers()).map((member) => [member.userId, member.owner]);
      });
      expect(seen).toEqual([
        [alice, true],
        [carol, true],
      ]);
      expect(await store.listMembers(room.id)).toEqual([
        memberFixture(alice, true, t0),
        memberFixture(carol, true, t0 + 2),
      ]);
      expect(await store.getSettings(room.id, carol)).toEqual({ muted: false, clearedAt: new Date(t0 + 2) });
    });

    it('deletes the room with its attachments, queueing their bytes', async () => {
      const room = await groupOf();
      const attachment = attachmentFixture(room.id, t0);
      await store.insertAttachment(attachment);
      expect(await store.withRoomLock(room.id, (locked) => locked.deleteRoom())).toBe(true);
      expect(await store.getRoom(room.id)).toBeUndefined();
      expect(await store.listPendingBlobDeletions(10)).toEqual([attachment.blobKey]);
      await expect(store.withRoomLock(room.id, async () => 'ran')).rejects.toMatchObject({
        code: 'room_not_found',
      });
    });

    it('answers room_not_found for an unknown room without running the work', async () => {
      let ran = false;
      await expect(
        store.withRoomLock(randomUUID(), async () => {
          ran = true;
        }),
      ).rejects.toMatchObject({ code: 'room_not_found' });
      expect(ran).toBe(false);
    });

    it('runs the works of one room one at a time, in order, while other rooms go on', async () => {
      const room = await groupOf();
      const other = await groupOf();
      const steps: string[] = [];
      const held = gate();
      const entered = gate();
      const first = store.withRoomLock(room.id, async () => {
        steps.push('first in');
        entered.open();
        await held.opened;
        steps.push('first out');
      });
      await entered.opened;
      const second = store.withRoomLock(room.id, async () => {
        steps.push('second in');
      });
      expect(await store.withRoomLock(other.id, async (locked) => locked.room.id)).toBe(other.id);
      // Give a store that does not lock every chance to let `second` in before `first` is done.
      await new Promise((resolve) => setTimeout(resolve, 100));
      held.open();
      await Promise.all([first, second]);
      expect(steps).toEqual(['first in', 'first out', 'second in']);
    });

    it('passes on what the work throws and frees the room for the next one', async () => {
      const room = await groupOf();
      const failure = new Error('work failed');
      await expect(
        store.withRoomLock(room.id, async () => {
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await store.withRoomLock(room.id, async (locked) => (await locked.listMembers()).length)).toBe(
        2,
      );
    });
  });
}
