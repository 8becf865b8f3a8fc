import { ChatError } from '../errors.js';
import { parseId } from '../ids.js';
import {
  type MemberToInsert,
  memberToInsertFieldsSchema,
  memberToInsertSchema,
  parseInput,
} from '../inputs.js';
import type { Actor, Member, MemberInserted, MemberRecord } from '../model.js';
import { bodyOf, isRequestBody, type RequestBody } from '../parse-bodies.js';
import type { LockedRoom } from '../ports/locked-room.js';
import {
  checkMemberAddition,
  checkMemberRemoval,
  checkOwnerChange,
  checkOwnerChangeTarget,
  requireMember,
  requireOwner,
} from '../room-rules.js';
import type { ServiceContext } from './context.js';
import { requireRoomQuota } from './room-quota.js';
import { memberView } from './views.js';

/**
 * The caller's membership as it is under the room's lock: it may have changed since the request
 * was first checked (demoted or removed by a change that committed meanwhile).
 * @throws ChatError `not_a_member`
 */
function callerNow(locked: LockedRoom, members: readonly MemberRecord[], callerId: string): MemberRecord {
  return requireMember(
    locked.room,
    members.find((member) => member.userId === callerId),
  );
}

/**
 * Member operations: list, add, remove or leave, promote and demote. Each change checks its rule
 * and writes under `store.withRoomLock`, so the rule holds across server processes too; the
 * in-process `context.locks` around it keeps the events of one room in order and spares pool
 * connections waiting on the same row.
 */
export function createMemberOperations(
  context: ServiceContext,
  removeRoom: (roomId: string, formerMemberIds: readonly string[]) => Promise<void>,
) {
  const { store, clock, limits } = context;

  async function listMembers(actor: Actor, roomId: string): Promise<Member[]> {
    const { room } = await context.roomAsMember(actor, roomId);
    return (await store.listMembers(room.id)).map(memberView);
  }

  async function addMember(
    actor: Actor,
    roomId: string,
    member: MemberToInsert | RequestBody<MemberToInsert>,
  ): Promise<MemberInserted> {
    const { room, caller } = await context.roomAsMember(actor, roomId);
    requireOwner(room, caller);
    const input = isRequestBody(member)
      ? parseInput(memberToInsertSchema, bodyOf(member), 'member')
      : parseInput(memberToInsertFieldsSchema, member, 'member');
    if (!(await context.users.userExists(input.userId, actor))) {
      throw new ChatError('user_not_found', `expected an existing user but ${input.userId} is not a user`);
    }
    await requireRoomQuota(context, actor.userId, [input.userId]);
    const notice = context.systemNotice(room.id, actor.userId, 'memberAdded', { userId: input.userId });
    return context.locks.run(room.id, async () => {
      const now = clock.now();
      const members = await store.withRoomLock(room.id, async (locked) => {
        const current = await locked.listMembers();
        requireOwner(locked.room, callerNow(locked, current, actor.userId));
        checkMemberAddition(locked.room, current, input.userId, limits);
        const member = { userId: input.userId, owner: input.owner, joinedAt: now };
        await locked.insertMember(
          member,
          input.historyCleared ? { muted: false, clearedAt: now } : undefined,
          [notice],
        );
        return current;
      });
      const memberIds = [...members.map((existing) => existing.userId), input.userId];
      await context.notify(memberIds, {
        type: 'ROOM_MEMBER_ADDED',
        roomId: room.id,
        userId: input.userId,
        isOwner: input.owner,
      });
      await context.dispatch(notice.message, memberIds);
      const inserted: MemberInserted = { userId: input.userId, owner: input.owner };
      if (input.historyCleared) inserted.clearedAt = now.toISOString();
      return inserted;
    });
  }

  async function removeMember(actor: Actor, roomId: string, rawUserId: string): Promise<void> {
    const { room } = await context.roomAsMember(actor, roomId);
    const targetId = parseId(rawUserId, 'member_not_found', 'user');
    const notice = context.systemNotice(room.id, actor.userId, 'memberRemoved', { userId: targetId });
    await context.locks.run(room.id, async () => {
      const { members, roomBecomesEmpty } = await store.withRoomLock(room.id, async (locked) => {
        const current = await locked.listMembers();
        const outcome = checkMemberRemoval(
          locked.room,
          callerNow(locked, current, actor.userId),
          targetId,
          current,
        );
        await locked.deleteMember(targetId, [notice]);
        return { members: current, ...outcome };
      });
      await context.roomObserver.memberRemoved(room.id, targetId).catch((error: unknown) => {
        context.onBackgroundError(error, `removing ${targetId} from the meeting of room ${room.id}`);
      });
      const memberIds = members.map((member) => member.userId);
      await context.notify(memberIds, { type: 'ROOM_MEMBER_REMOVED', roomId: room.id, userId: targetId });
      await context.dispatch(notice.message, memberIds);
      if (roomBecomesEmpty) await removeRoom(room.id, [targetId]);
    });
  }

  async function setOwner(actor: Actor, roomId: string, rawUserId: string, owner: boolean): Promise<void> {
    const { room } = await context.roomAsMember(actor, roomId);
    const targetId = parseId(rawUserId, 'member_not_found', 'user');
    checkOwnerChangeTarget(actor.userId, targetId);
    await context.locks.run(room.id, async () => {
      const memberIds = await store.withRoomLock(room.id, async (locked) => {
        const members = await locked.listMembers();
        const target = members.find((member) => member.userId === targetId);
        const checked = checkOwnerChange(locked.room, callerNow(locked, members, actor.userId), target);
        if (checked.owner === owner) return undefined;
        await locked.setOwner(targetId, owner);
        return members.map((member) => member.userId);
      });
      if (memberIds === undefined) return;
      await context.notify(memberIds, {
        type: owner ? 'ROOM_OWNER_PROMOTED' : 'ROOM_OWNER_DEMOTED',
        roomId: room.id,
        userId: targetId,
      });
    });
  }

  return { listMembers, addMember, removeMember, setOwner };
}
