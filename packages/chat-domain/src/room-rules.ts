import { ChatError } from './errors.js';
import { oneToOneKey } from './ids.js';
import type { RoomCreationInput, RoomEditableInput } from './inputs.js';
import type { AttachmentRecord, MemberRecord, RoomRecord, RoomType } from './model.js';

/** Limits the room rules apply. */
export interface RoomRuleLimits {
  /** Most people (creator included) in a group or temporary room. */
  maxRoomMembers: number;
}

/** What {@link planRoomCreation} decided. */
export interface RoomCreationPlan {
  type: RoomType;
  name: string;
  description: string;
  /** Invitees, in the order given; the requester is added as owner. */
  inviteeIds: string[];
  /** Set for one_to_one rooms. */
  oneToOneKey?: string;
}

/**
 * Checks a room creation in the original's order: name rules, duplicate invitees, requester among
 * the invitees, then the type's member-count rules. one_to_one rooms get empty name and description.
 * @throws ChatError `invalid_input` or `operation_not_allowed`, `room_full`
 */
export function planRoomCreation(
  input: RoomCreationInput,
  requesterId: string,
  limits: RoomRuleLimits,
): RoomCreationPlan {
  const { type, membersIds } = input;
  if (type !== 'one_to_one' && input.name === undefined) {
    throw new ChatError(
      'invalid_input',
      `invalid room: \`name\`: expected a name for a ${type} room but received nothing`,
    );
  }
  if (new Set(membersIds).size !== membersIds.length) {
    throw new ChatError(
      'invalid_input',
      'invalid room: `membersIds`: expected distinct users but received duplicates',
    );
  }
  if (membersIds.includes(requesterId)) {
    throw new ChatError(
      'invalid_input',
      'invalid room: `membersIds`: expected only the other users but received the requester, who is added automatically',
    );
  }
  if (type === 'one_to_one') {
    const [other] = membersIds;
    if (other === undefined || membersIds.length !== 1) {
      throw new ChatError(
        'operation_not_allowed',
        `expected exactly 1 other member for a one_to_one room but received ${membersIds.length}`,
      );
    }
    return {
      type,
      name: '',
      description: '',
      inviteeIds: [other],
      oneToOneKey: oneToOneKey(requesterId, other),
    };
  }
  if (type === 'group' && membersIds.length < 2) {
    throw new ChatError(
      'operation_not_allowed',
      `expected at least 2 other members for a group room but received ${membersIds.length}`,
    );
  }
  if (membersIds.length + 1 > limits.maxRoomMembers) {
    throw new ChatError(
      'room_full',
      `expected at most ${limits.maxRoomMembers} members in a ${type} room but received ${membersIds.length + 1}`,
      { details: { maxRoomMembers: limits.maxRoomMembers } },
    );
  }
  return { type, name: input.name ?? '', description: input.description ?? '', inviteeIds: [...membersIds] };
}

/** The members of a new room: the creator owns it; both members own a one_to_one room. */
export function initialMembers(plan: RoomCreationPlan, requesterId: string, joinedAt: Date): MemberRecord[] {
  const ownsAll = plan.type === 'one_to_one';
  return [
    { userId: requesterId, owner: true, joinedAt },
    ...plan.inviteeIds.map((userId) => ({ userId, owner: ownsAll, joinedAt })),
  ];
}

/**
 * The caller's membership, required for every room operation.
 * @throws ChatError `not_a_member`
 */
export function requireMember(room: RoomRecord, member: MemberRecord | undefined): MemberRecord {
  if (member === undefined) {
    throw new ChatError(
      'not_a_member',
      `expected the caller to be a member of room ${room.id} but they are not`,
    );
  }
  return member;
}

/** @throws ChatError `not_an_owner` */
export function requireOwner(room: RoomRecord, member: MemberRecord): void {
  if (!member.owner) {
    throw new ChatError(
      'not_an_owner',
      `expected the caller to own room ${room.id} but they are a plain member`,
    );
  }
}

/** @throws ChatError `operation_not_allowed` for a one_to_one room */
export function requireNotOneToOne(room: RoomRecord, action: string): void {
  if (room.type === 'one_to_one') {
    throw new ChatError(
      'operation_not_allowed',
      `expected a group or temporary room to ${action} but this one is one_to_one`,
    );
  }
}

/**
 * Checks an update after membership: type rules first, then ownership (the original's order).
 * Returns only the fields that change.
 * @throws ChatError `operation_not_allowed`, `invalid_input`, `not_an_owner`
 */
export function planRoomUpdate(
  room: RoomRecord,
  caller: MemberRecord,
  input: RoomEditableInput,
): RoomEditableInput {
  requireNotOneToOne(room, 'change its name or description');
  if (room.type === 'group' && input.name === undefined && input.description === undefined) {
    throw new ChatError(
      'invalid_input',
      'invalid room changes: expected `name` or `description` but received neither',
    );
  }
  requireOwner(room, caller);
  const changes: RoomEditableInput = {};
  if (input.name !== undefined && input.name !== room.name) changes.name = input.name;
  if (input.description !== undefined && input.description !== room.description)
    changes.description = input.description;
  return changes;
}

/** @throws ChatError `forbidden` for a one_to_one room, `not_an_owner` */
export function checkRoomDeletion(room: RoomRecord, caller: MemberRecord): void {
  if (room.type === 'one_to_one') {
    throw new ChatError(
      'forbidden',
      'expected a group or temporary room to delete but this one is one_to_one',
    );
  }
  requireOwner(room, caller);
}

/**
 * Checks adding a member after the caller's ownership: type, member limit, existing membership.
 * @throws ChatError `operation_not_allowed`, `room_full`, `already_member`
 */
export function checkMemberAddition(
  room: RoomRecord,
  members: readonly MemberRecord[],
  userId: string,
  limits: RoomRuleLimits,
): void {
  requireNotOneToOne(room, 'add members');
  if (members.length >= limits.maxRoomMembers) {
    throw new ChatError(
      'room_full',
      `expected fewer than ${limits.maxRoomMembers} members but the room is full`,
      {
        details: { maxRoomMembers: limits.maxRoomMembers },
      },
    );
  }
  if (members.some((member) => member.userId === userId)) {
    throw new ChatError('already_member', `expected a new member but ${userId} is already one`);
  }
}

/**
 * Checks removing `targetId` (leave when it is the caller, kick otherwise) after membership.
 * Returns whether the room becomes empty.
 * @throws ChatError `not_an_owner`, `operation_not_allowed`, `member_not_found`, `last_owner`
 */
export function checkMemberRemoval(
  room: RoomRecord,
  caller: MemberRecord,
  targetId: string,
  members: readonly MemberRecord[],
): { roomBecomesEmpty: boolean } {
  if (caller.userId !== targetId) requireOwner(room, caller);
  requireNotOneToOne(room, 'remove members');
  const target = members.find((member) => member.userId === targetId);
  if (target === undefined) {
    throw new ChatError(
      'member_not_found',
      `expected ${targetId} to be a member of room ${room.id} but they are not`,
    );
  }
  const others = members.filter((member) => member.userId !== targetId);
  if (target.owner && others.length > 0 && !others.some((member) => member.owner)) {
    throw new ChatError(
      'last_owner',
      'expected another owner to remain but this is the last owner of a room with members',
    );
  }
  return { roomBecomesEmpty: others.length === 0 };
}

/** Checked before the room is even read: nobody promotes or demotes themselves. @throws ChatError `operation_not_allowed` */
export function checkOwnerChangeTarget(callerId: string, targetId: string): void {
  if (callerId === targetId) {
    throw new ChatError(
      'operation_not_allowed',
      'expected another member but received the caller: nobody changes their own owner status',
    );
  }
}

/**
 * Checks promoting or demoting after membership: ownership, type, target membership.
 * @throws ChatError `not_an_owner`, `operation_not_allowed`, `forbidden` when the target is no member
 */
export function checkOwnerChange(
  room: RoomRecord,
  caller: MemberRecord,
  target: MemberRecord | undefined,
): MemberRecord {
  requireOwner(room, caller);
  requireNotOneToOne(room, 'change owners');
  if (target === undefined) {
    throw new ChatError(
      'forbidden',
      `expected the target to be a member of room ${room.id} but they are not`,
    );
  }
  return target;
}

/**
 * Checks a picture upload after ownership: group room, size, declared type.
 * @throws ChatError `operation_not_allowed`, `picture_too_large`, `invalid_picture`
 */
export function checkPictureUpload(
  room: RoomRecord,
  size: number | undefined,
  mimeType: string,
  maxBytes: number,
): void {
  if (room.type !== 'group') {
    throw new ChatError(
      'operation_not_allowed',
      `expected a group room to set a picture but this one is ${room.type}`,
    );
  }
  if (size !== undefined && size > maxBytes) {
    throw new ChatError(
      'picture_too_large',
      `expected a picture of at most ${maxBytes} bytes but received ${size}`,
      {
        details: { maxBytes },
      },
    );
  }
  if (!mimeType.toLowerCase().startsWith('image/')) {
    throw new ChatError(
      'invalid_picture',
      `expected an image/* mimeType but received ${JSON.stringify(mimeType)}`,
    );
  }
}

/** Only the uploader or an owner may delete an attachment. @throws ChatError `forbidden` */
export function checkAttachmentDeletion(attachment: AttachmentRecord, caller: MemberRecord): void {
  if (attachment.userId !== caller.userId && !caller.owner) {
    throw new ChatError('forbidden', 'expected the uploader or a room owner but the caller is neither');
  }
}
