import { describe, expect, it } from 'vitest';
import type { ChatErrorCode } from './errors.js';
import { roomCreationSchema } from './inputs.js';
import type { MemberRecord, RoomRecord, RoomType } from './model.js';
import {
  checkAttachmentDeletion,
  checkMemberAddition,
  checkMemberRemoval,
  checkOwnerChange,
  checkOwnerChangeTarget,
  checkPictureUpload,
  checkRoomDeletion,
  initialMembers,
  planRoomCreation,
  planRoomUpdate,
} from './room-rules.js';

const me = '00000000-0000-4000-8000-000000000001';
const u2 = '00000000-0000-4000-8000-000000000002';
const u3 = '00000000-0000-4000-8000-000000000003';
const limits = { maxRoomMembers: 4 };
const at = new Date(0);
const room = (type: RoomType = 'group'): RoomRecord => ({
  id: 'room',
  type,
  name: 'n',
  description: 'd',
  meetingId: null,
  createdAt: at,
  updatedAt: at,
  pictureUpdatedAt: null,
});
const member = (userId: string, owner: boolean): MemberRecord => ({ userId, owner, joinedAt: at });
const create = (body: unknown) => planRoomCreation(roomCreationSchema.parse(body), me, limits);
const failsWith = (run: () => unknown, code: ChatErrorCode) =>
  expect(run).toThrow(expect.objectContaining({ code }));

describe('planRoomCreation', () => {
  it('plans a group with the requester added as owner', () => {
    const plan = create({ type: 'group', name: 'Team', membersIds: [u2, u3] });
    expect(plan).toEqual({ type: 'group', name: 'Team', description: '', inviteeIds: [u2, u3] });
    expect(initialMembers(plan, me, at).map((entry) => [entry.userId, entry.owner])).toEqual([
      [me, true],
      [u2, false],
      [u3, false],
    ]);
  });

  it('empties the name and description of a one_to_one room and makes both members owners', () => {
    const plan = create({ type: 'ONE_TO_ONE', name: 'ignored', description: 'ignored', membersIds: [u2] });
    expect(plan).toMatchObject({ name: '', description: '', oneToOneKey: [me, u2].sort().join(':') });
    expect(initialMembers(plan, me, at).every((entry) => entry.owner)).toBe(true);
  });

  it('checks in the original order: name, duplicates, requester, type rules', () => {
    failsWith(() => create({ type: 'group', membersIds: [u2, u2] }), 'invalid_input');
    failsWith(() => create({ type: 'group', name: 'n', membersIds: [u2, u2] }), 'invalid_input');
    failsWith(() => create({ type: 'one_to_one', membersIds: [me, me] }), 'invalid_input');
    failsWith(() => create({ type: 'one_to_one', membersIds: [me] }), 'invalid_input');
    failsWith(() => create({ type: 'one_to_one', membersIds: [u2, u3] }), 'operation_not_allowed');
    failsWith(() => create({ type: 'one_to_one' }), 'operation_not_allowed');
    failsWith(() => create({ type: 'group', name: 'n', membersIds: [u2] }), 'operation_not_allowed');
    failsWith(() => create({ type: 'temporary', membersIds: [] }), 'invalid_input');
  });

  it('allows a temporary room with the requester alone', () => {
    expect(create({ type: 'temporary', name: 'Call' }).inviteeIds).toEqual([]);
  });

  it('refuses more people than maxRoomMembers, the requester included', () => {
    const invitees = [u2, u3, '00000000-0000-4000-8000-000000000004'];
    expect(create({ type: 'group', name: 'n', membersIds: invitees }).inviteeIds).toHaveLength(3);
    failsWith(
      () =>
        create({
          type: 'temporary',
          name: 'n',
          membersIds: [...invitees, '00000000-0000-4000-8000-000000000005'],
        }),
      'room_full',
    );
  });
});

describe('planRoomUpdate', () => {
  it('checks the type before ownership, as the original does', () => {
    failsWith(
      () => planRoomUpdate(room('one_to_one'), member(me, false), { name: 'x' }),
      'operation_not_allowed',
    );
    failsWith(() => planRoomUpdate(room(), member(me, true), {}), 'invalid_input');
    failsWith(() => planRoomUpdate(room(), member(me, false), { name: 'x' }), 'not_an_owner');
  });

  it('keeps only the fields that change and accepts an empty change of a temporary room', () => {
    expect(planRoomUpdate(room(), member(me, true), { name: 'n', description: 'new' })).toEqual({
      description: 'new',
    });
    expect(planRoomUpdate(room('temporary'), member(me, true), {})).toEqual({});
  });
});

describe('deletion, members and owners', () => {
  it('never deletes a one_to_one room and needs an owner otherwise', () => {
    failsWith(() => checkRoomDeletion(room('one_to_one'), member(me, true)), 'forbidden');
    failsWith(() => checkRoomDeletion(room(), member(me, false)), 'not_an_owner');
    expect(() => checkRoomDeletion(room('temporary'), member(me, true))).not.toThrow();
  });

  it('adds members to group and temporary rooms below the limit only', () => {
    const members = [member(me, true), member(u2, false)];
    failsWith(() => checkMemberAddition(room('one_to_one'), members, u3, limits), 'operation_not_allowed');
    failsWith(() => checkMemberAddition(room(), members, u2, limits), 'already_member');
    const full = [...members, member(u3, false), member('x', false)];
    failsWith(() => checkMemberAddition(room(), full, 'y', limits), 'room_full');
    expect(() => checkMemberAddition(room('temporary'), members, u3, limits)).not.toThrow();
  });

  it('lets anyone leave but only owners kick', () => {
    const members = [member(me, true), member(u2, false), member(u3, false)];
    expect(checkMemberRemoval(room(), member(u2, false), u2, members)).toEqual({ roomBecomesEmpty: false });
    failsWith(() => checkMemberRemoval(room(), member(u2, false), u3, members), 'not_an_owner');
    failsWith(() => checkMemberRemoval(room(), member(me, true), 'stranger', members), 'member_not_found');
    failsWith(
      () => checkMemberRemoval(room('one_to_one'), member(me, true), me, members),
      'operation_not_allowed',
    );
  });

  it('keeps the last owner while others remain, and lets the last member go', () => {
    const members = [member(me, true), member(u2, false)];
    failsWith(() => checkMemberRemoval(room(), member(me, true), me, members), 'last_owner');
    expect(checkMemberRemoval(room(), member(me, true), me, [...members, member(u3, true)])).toEqual({
      roomBecomesEmpty: false,
    });
    expect(checkMemberRemoval(room(), member(me, true), me, [member(me, true)])).toEqual({
      roomBecomesEmpty: true,
    });
  });

  it('refuses changing your own owner flag before anything else, then needs an owner and a member target', () => {
    failsWith(() => checkOwnerChangeTarget(me, me), 'operation_not_allowed');
    failsWith(() => checkOwnerChange(room(), member(me, false), member(u2, false)), 'not_an_owner');
    failsWith(
      () => checkOwnerChange(room('one_to_one'), member(me, true), member(u2, true)),
      'operation_not_allowed',
    );
    failsWith(() => checkOwnerChange(room(), member(me, true), undefined), 'forbidden');
  });
});

describe('pictures and attachments', () => {
  it('accepts an image/* picture up to the limit in group rooms only', () => {
    expect(() => checkPictureUpload(room(), 10, 'image/png', 10)).not.toThrow();
    failsWith(() => checkPictureUpload(room('temporary'), 10, 'image/png', 10), 'operation_not_allowed');
    failsWith(() => checkPictureUpload(room(), 11, 'image/png', 10), 'picture_too_large');
    failsWith(() => checkPictureUpload(room(), 10, 'text/plain', 10), 'invalid_picture');
  });

  it('lets the uploader or an owner delete an attachment', () => {
    const attachment = {
      id: 'a',
      roomId: 'room',
      userId: u2,
      name: 'f',
      mimeType: 'text/plain',
      size: 1,
      area: null,
      blobKey: 'attachments/a',
      createdAt: at,
    };
    expect(() => checkAttachmentDeletion(attachment, member(u2, false))).not.toThrow();
    expect(() => checkAttachmentDeletion(attachment, member(me, true))).not.toThrow();
    failsWith(() => checkAttachmentDeletion(attachment, member(u3, false)), 'forbidden');
  });
});
