import { ChatError } from '../errors.js';
import { parseId } from '../ids.js';
import { memberToInsertSchema, parseInput } from '../inputs.js';
import type { Actor, Member, MemberInserted } from '../model.js';
import {
  checkMemberAddition,
  checkMemberRemoval,
  checkOwnerChange,
  checkOwnerChangeTarget,
  requireOwner,
} from '../room-rules.js';
import type { ServiceContext } from './context.js';
import { memberView } from './views.js';

/** Member operations: list, add, remove or leave, promote and demote. */
export function createMemberOperations(
  context: ServiceContext,
  removeRoom: (roomId: string, formerMemberIds: readonly string[]) => Promise<void>,
) {
  const { store, clock, limits } = context;

  async function listMembers(actor: Actor, roomId: string): Promise<Member[]> {
    const { room } = await context.roomAsMember(actor, roomId);
    return (await store.listMembers(room.id)).map(memberView);
  }

  async function addMember(actor: Actor, roomId: string, body: unknown): Promise<MemberInserted> {
    const input = parseInput(memberToInsertSchema, body, 'member');
    if (!(await context.users.userExists(input.userId, actor))) {
      throw new ChatError('user_not_found', `expected an existing user but ${input.userId} is not a user`);
    }
    const { room, caller } = await context.roomAsMember(actor, roomId);
    requireOwner(room, caller);
    return context.locks.run(room.id, async () => {
      const members = await store.listMembers(room.id);
      checkMemberAddition(room, members, input.userId, limits);
      const now = clock.now();
      const member = { userId: input.userId, owner: input.owner, joinedAt: now };
      await store.insertMember(
        room.id,
        member,
        input.historyCleared ? { muted: false, clearedAt: now } : undefined,
      );
      const memberIds = [...members.map((existing) => existing.userId), input.userId];
      await context.notify(memberIds, {
        type: 'ROOM_MEMBER_ADDED',
        roomId: room.id,
        userId: input.userId,
        isOwner: input.owner,
      });
      await context.dispatch(
        {
          type: 'ROOM_SYSTEM_MESSAGE',
          roomId: room.id,
          senderId: actor.userId,
          operation: 'memberAdded',
          fields: { userId: input.userId },
        },
        memberIds,
      );
      const inserted: MemberInserted = { userId: input.userId, owner: input.owner };
      if (input.historyCleared) inserted.clearedAt = now.toISOString();
      return inserted;
    });
  }

  async function removeMember(actor: Actor, roomId: string, rawUserId: string): Promise<void> {
    const { room, caller } = await context.roomAsMember(actor, roomId);
    const targetId = parseId(rawUserId, 'member_not_found', 'user');
    await context.locks.run(room.id, async () => {
      const members = await store.listMembers(room.id);
      const { roomBecomesEmpty } = checkMemberRemoval(room, caller, targetId, members);
      await store.deleteMember(room.id, targetId);
      await context.roomObserver.memberRemoved(room.id, targetId).catch((error: unknown) => {
        context.onBackgroundError(error, `removing ${targetId} from the meeting of room ${room.id}`);
      });
      const memberIds = members.map((member) => member.userId);
      await context.notify(memberIds, { type: 'ROOM_MEMBER_REMOVED', roomId: room.id, userId: targetId });
      await context.dispatch(
        {
          type: 'ROOM_SYSTEM_MESSAGE',
          roomId: room.id,
          senderId: actor.userId,
          operation: 'memberRemoved',
          fields: { userId: targetId },
        },
        memberIds,
      );
      if (roomBecomesEmpty) await removeRoom(room.id, [targetId]);
    });
  }

  async function setOwner(actor: Actor, roomId: string, rawUserId: string, owner: boolean): Promise<void> {
    const targetId = parseId(rawUserId, 'member_not_found', 'user');
    checkOwnerChangeTarget(actor.userId, targetId);
    const { room, caller } = await context.roomAsMember(actor, roomId);
    await context.locks.run(room.id, async () => {
      const target = checkOwnerChange(room, caller, await store.getMember(room.id, targetId));
      if (target.owner === owner) return;
      await store.setOwner(room.id, targetId, owner);
      const memberIds = (await store.listMembers(room.id)).map((member) => member.userId);
      await context.notify(memberIds, {
        type: owner ? 'ROOM_OWNER_PROMOTED' : 'ROOM_OWNER_DEMOTED',
        roomId: room.id,
        userId: targetId,
      });
    });
  }

  return { listMembers, addMember, removeMember, setOwner };
}
