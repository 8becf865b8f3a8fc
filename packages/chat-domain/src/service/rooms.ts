import { ChatError, isChatError } from '../errors.js';
import {
  extraFieldsSchema,
  parseInput,
  type RoomCreationFields,
  type RoomEditableFields,
  roomCreationFieldsSchema,
  roomCreationSchema,
  roomEditableFieldsSchema,
  roomEditableSchema,
} from '../inputs.js';
import type { Actor, MemberRecord, Room, RoomRecord } from '../model.js';
import { bodyOf, isRequestBody, type RequestBody } from '../parse-bodies.js';
import type { RoomCursor } from '../ports/chat-store.js';
import type { OutboxMessage } from '../ports/mirror-outbox.js';
import { checkRoomDeletion, initialMembers, planRoomCreation, planRoomUpdate } from '../room-rules.js';
import { compareMembersInJoinOrder } from '../stores/ordering.js';
import type { ServiceContext } from './context.js';
import { decodeRoomCursor, encodeRoomCursor } from './room-cursor.js';
import { requireRoomQuota } from './room-quota.js';
import { memberView, roomView } from './views.js';

async function requireUsersExist(
  context: ServiceContext,
  actor: Actor,
  userIds: readonly string[],
): Promise<void> {
  const answers = await Promise.all(userIds.map((userId) => context.users.userExists(userId, actor)));
  const missing = userIds.filter((_, index) => !answers[index]);
  if (missing.length > 0) {
    throw new ChatError('user_not_found', `expected existing users but ${missing.join(', ')} is not a user`, {
      details: { userIds: missing },
    });
  }
}

/** Rooms read per query by {@link listRooms}: a few milliseconds of SQLite work. */
const LISTING_PAGE = 200;

/** Resolves on a later turn of the event loop, after its timers and I/O. */
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Room operations: list, create, get, update, delete. */
export function createRoomOperations(context: ServiceContext) {
  const { store, clock, limits } = context;

  async function createRoom(
    actor: Actor,
    fields: RoomCreationFields | RequestBody<RoomCreationFields>,
  ): Promise<Room> {
    const input = isRequestBody(fields)
      ? parseInput(roomCreationSchema, bodyOf(fields), 'room')
      : parseInput(roomCreationFieldsSchema, fields, 'room');
    const plan = planRoomCreation(input, actor.userId, limits);
    if (plan.oneToOneKey !== undefined && (await store.findOneToOneRoom(plan.oneToOneKey))) {
      throw new ChatError(
        'one_to_one_exists',
        'expected no one_to_one room between these users but one exists',
      );
    }
    await requireUsersExist(context, actor, plan.inviteeIds);
    await requireRoomQuota(context, actor.userId, [actor.userId, ...plan.inviteeIds]);
    const now = clock.now();
    const room: RoomRecord = {
      id: context.createId(),
      type: plan.type,
      name: plan.name,
      description: plan.description,
      meetingId: null,
      createdAt: now,
      updatedAt: now,
      pictureUpdatedAt: null,
    };
    const members = initialMembers(plan, actor.userId, now);
    const notices = plan.inviteeIds.map((userId) =>
      context.systemNotice(room.id, actor.userId, 'memberAdded', { userId }),
    );
    await store.insertRoom(room, members, plan.oneToOneKey, notices);
    const memberIds = members.map((member) => member.userId);
    await context.notify(memberIds, { type: 'ROOM_CREATED', roomId: room.id });
    for (const notice of notices) await context.dispatch(notice.message, memberIds);
    return roomView(room, [...members].sort(compareMembersInJoinOrder).map(memberView), null);
  }

  const includeOf = (extraFields: unknown) => {
    const fields = parseInput(extraFieldsSchema, extraFields, 'extraFields');
    return { members: fields.includes('members'), settings: fields.includes('settings') };
  };

  /**
   * Every room of the caller, read a page at a time with a turn of the event loop between pages,
   * so that a user in thousands of rooms holds up no other request for long.
   */
  async function listRooms(actor: Actor, extraFields: unknown): Promise<Room[]> {
    const include = includeOf(extraFields);
    const rooms: Room[] = [];
    let after: RoomCursor | undefined;
    for (;;) {
      const listings = await store.listRoomsOfUser(actor.userId, include, { limit: LISTING_PAGE, after });
      for (const listing of listings) rooms.push(roomView(listing.room, listing.members, listing.settings));
      const last = listings.at(-1);
      if (last === undefined || listings.length < LISTING_PAGE) return rooms;
      after = { createdAt: last.room.createdAt, id: last.room.id };
      await nextTurn();
    }
  }

  /** One page of the caller's rooms, oldest first, and the cursor of the next page when there is one. */
  async function listRoomsPage(
    actor: Actor,
    extraFields: unknown,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<{ rooms: Room[]; nextCursor: string | undefined }> {
    const include = includeOf(extraFields);
    const after = page.cursor === undefined ? undefined : decodeRoomCursor(page.cursor);
    const listings = await store.listRoomsOfUser(actor.userId, include, { limit: page.limit + 1, after });
    const shown = listings.slice(0, page.limit);
    const last = shown.at(-1);
    return {
      rooms: shown.map((listing) => roomView(listing.room, listing.members, listing.settings)),
      nextCursor:
        listings.length > page.limit && last !== undefined
          ? encodeRoomCursor({ createdAt: last.room.createdAt, id: last.room.id })
          : undefined,
    };
  }

  async function getRoom(actor: Actor, roomId: string): Promise<Room> {
    const { room } = await context.roomAsMember(actor, roomId);
    const [members, settings] = await Promise.all([
      store.listMembers(room.id),
      store.getSettings(room.id, actor.userId),
    ]);
    return roomView(room, members.map(memberView), settings ?? null);
  }

  async function updateRoom(
    actor: Actor,
    roomId: string,
    fields: RoomEditableFields | RequestBody<RoomEditableFields>,
  ): Promise<Room> {
    const { room, caller } = await context.roomAsMember(actor, roomId);
    const input = isRequestBody(fields)
      ? parseInput(roomEditableSchema, bodyOf(fields), 'room changes')
      : parseInput(roomEditableFieldsSchema, fields, 'room changes');
    const changes = planRoomUpdate(room, caller, input);
    let updated = room;
    if (changes.name !== undefined || changes.description !== undefined) {
      const notices: OutboxMessage[] = [];
      if (changes.name !== undefined) {
        notices.push(context.systemNotice(room.id, actor.userId, 'roomNameChanged', { value: changes.name }));
      }
      if (changes.description !== undefined) {
        notices.push(
          context.systemNotice(room.id, actor.userId, 'roomDescriptionChanged', {
            value: changes.description,
          }),
        );
      }
      updated = (await store.updateRoom(room.id, { ...changes, updatedAt: clock.now() }, notices)) ?? room;
      const members = await store.listMembers(room.id);
      const memberIds = members.map((member) => member.userId);
      await context.notify(memberIds, {
        type: 'ROOM_UPDATED',
        roomId: room.id,
        name: updated.name,
        description: updated.description,
      });
      for (const notice of notices) await context.dispatch(notice.message, memberIds);
    }
    return getRoom(actor, updated.id);
  }

  async function deleteRoom(actor: Actor, roomId: string): Promise<void> {
    const { room, caller } = await context.roomAsMember(actor, roomId);
    checkRoomDeletion(room, caller);
    await context.locks.run(room.id, () => removeRoom(room.id));
  }

  /** Lists the members and deletes the room under its store lock; undefined when it is already gone. */
  async function deleteLocked(id: string): Promise<MemberRecord[] | undefined> {
    try {
      return await store.withRoomLock(id, async (locked) => {
        const members = await locked.listMembers();
        return (await locked.deleteRoom()) ? members : undefined;
      });
    } catch (error) {
      if (isChatError(error, 'room_not_found')) return undefined;
      throw error;
    }
  }

  /**
   * Ends the room's meeting, deletes the room and everything in it, then tells the members it had
   * at that moment and `formerMemberIds`. Call under the room's `context.locks`.
   */
  async function removeRoom(id: string, formerMemberIds: readonly string[] = []): Promise<void> {
    await context.roomObserver.roomDeleting(id).catch((error: unknown) => {
      context.onBackgroundError(error, `ending the meeting of room ${id}`);
    });
    const members = await deleteLocked(id);
    if (members === undefined) return;
    await context.purgeBlobs();
    const recipients = new Set([...members.map((member) => member.userId), ...formerMemberIds]);
    await context.notify([...recipients], { type: 'ROOM_DELETED', roomId: id });
  }

  return { createRoom, listRooms, listRoomsPage, getRoom, updateRoom, deleteRoom, removeRoom };
}
