import { randomUUID } from 'node:crypto';
import { createChatService, createManualClock, createMemoryChatStore } from '@collab-suite/chat-domain';
import { describe, expect, it } from 'vitest';

function service(maxRoomsPerUser?: number) {
  const clock = createManualClock(new Date('2024-05-01T08:00:00.000Z'));
  const chat = createChatService({
    store: createMemoryChatStore(),
    clock,
    ...(maxRoomsPerUser ? { limits: { maxRoomsPerUser } } : {}),
  });
  return { chat, clock };
}

const actor = () => ({ userId: randomUUID() });
const group = (members: { userId: string }[]) => ({
  type: 'group' as const,
  name: 'Room',
  membersIds: members.map((member) => member.userId),
});

describe('rooms per user', () => {
  it('refuses a room past the cap for the creator or an invitee, and adding a member at the cap', async () => {
    const { chat } = service(3);
    const [alice, bob, carol, dave] = [actor(), actor(), actor(), actor()];
    // Alice's own rooms count against twice the cap (6).
    for (let index = 0; index < 6; index += 1) await chat.createRoom(alice, group([actor(), actor()]));
    await expect(chat.createRoom(alice, group([carol, dave]))).rejects.toMatchObject({
      code: 'too_many_rooms',
      details: { userId: alice.userId, maxRoomsPerUser: 3, limit: 6 },
    });
    for (let index = 0; index < 3; index += 1) await chat.createRoom(actor(), group([bob, carol]));
    await expect(chat.createRoom(dave, group([bob, carol]))).rejects.toMatchObject({
      code: 'too_many_rooms',
      details: { userId: bob.userId },
    });
    const other = actor();
    const room = await chat.createRoom(dave, group([other, actor()]));
    await expect(
      chat.addMember(dave, room.id, { userId: carol.userId, owner: false, historyCleared: false }),
    ).rejects.toMatchObject({
      code: 'too_many_rooms',
    });
    expect((await chat.listRooms(alice)).length).toBe(6);
  });

  it('never lets others keep a user from creating rooms of their own', async () => {
    const { chat } = service(3);
    const [victim, mallory] = [actor(), actor()];
    for (let index = 0; index < 3; index += 1) await chat.createRoom(mallory, group([victim, actor()]));
    // Others can fill the rooms they may put the victim in, no more: the adder is refused...
    await expect(chat.createRoom(mallory, group([victim, actor()]))).rejects.toMatchObject({
      code: 'too_many_rooms',
      details: { userId: victim.userId, limit: 3 },
    });
    const malloryRoom = await chat.createRoom(mallory, group([actor(), actor()]));
    await expect(
      chat.addMember(mallory, malloryRoom.id, { userId: victim.userId, owner: false, historyCleared: false }),
    ).rejects.toMatchObject({ code: 'too_many_rooms' });
    // ...and the victim still creates rooms of their own, up to the cap of their own creations.
    for (let index = 0; index < 3; index += 1) await chat.createRoom(victim, group([actor(), actor()]));
    expect((await chat.listRooms(victim)).length).toBe(6);
  });
});

describe('room listings', () => {
  it('lists every room of a user in order across internal pages, and pages on request', async () => {
    const { chat, clock } = service();
    const [alice, bob, carol] = [actor(), actor(), actor()];
    const created: string[] = [];
    for (let index = 0; index < 1_203; index += 1) {
      if (index % 3 === 0) clock.advance(1_000);
      created.push((await chat.createRoom(alice, group([bob, carol]))).id);
    }
    const all = await chat.listRooms(alice, 'members');
    expect(all.map((room) => room.id)).toEqual(
      [...created].sort((left, right) => {
        const [a, b] = [all.find((room) => room.id === left), all.find((room) => room.id === right)];
        return (a?.createdAt ?? '').localeCompare(b?.createdAt ?? '') || (left < right ? -1 : 1);
      }),
    );
    const paged: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await chat.listRoomsPage(alice, undefined, { limit: 250, cursor });
      paged.push(...page.rooms.map((room) => room.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBe(5);
    expect(paged).toEqual(all.map((room) => room.id));
    await expect(
      chat.listRoomsPage(alice, undefined, { limit: 10, cursor: 'not-a-cursor' }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
