import {
  type Actor,
  ChatError,
  type ChatService,
  chatErrorCodes,
  chatErrorHttpStatus,
  createChatService,
  createDiskBlobStore,
  createMeetingService,
  createMemoryChatStore,
  createMemoryEventBus,
  createMemoryMediaServer,
  type ForwardedMessage,
  httpStatusOf,
  isChatError,
  type MemberInserted,
  type MemberToInsert,
  type MemberToInsertInput,
  parseForwardMessages,
  parseMemberToInsert,
  parseRoomCreation,
  parseRoomEdit,
  type RequestBody,
  type Room,
  type RoomCreationFields,
  type RoomEditableFields,
  requestBody,
  retryAfterSecondsOf,
} from '@collab-suite/chat-domain';
import { describe, expect, expectTypeOf, it } from 'vitest';

// The signatures below are checked by `pnpm typecheck` (tsc over src and test); the lines marked
// "expect-error" directives must stay errors, or the compiler fails on the unused directive.

const alice: Actor = { userId: '0190d5b0-7a2c-7b3e-9f10-3c5d7e9a1b20' };
const bobId = '0190d5b0-7a2c-7b3e-9f10-3c5d7e9a1b21';

function refusal(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('the typed public API of chat-domain', () => {
  it('types every service method input precisely', () => {
    expectTypeOf<ChatService['createRoom']>()
      .parameter(1)
      .toEqualTypeOf<RoomCreationFields | RequestBody<RoomCreationFields>>();
    expectTypeOf<ChatService['updateRoom']>()
      .parameter(2)
      .toEqualTypeOf<RoomEditableFields | RequestBody<RoomEditableFields>>();
    expectTypeOf<ChatService['addMember']>()
      .parameter(2)
      .toEqualTypeOf<MemberToInsert | RequestBody<MemberToInsert>>();
    expectTypeOf<ChatService['forwardMessages']>()
      .parameter(2)
      .toEqualTypeOf<readonly ForwardedMessage[] | RequestBody<readonly ForwardedMessage[]>>();
    expectTypeOf<ChatService['createRoom']>().returns.resolves.toEqualTypeOf<Room>();
    expectTypeOf<ChatService['addMember']>().returns.resolves.toEqualTypeOf<MemberInserted>();
    expectTypeOf<RoomCreationFields['type']>().toEqualTypeOf<'group' | 'one_to_one' | 'temporary'>();
    // `owner` and `historyCleared` default to false in the library.
    expectTypeOf<{ userId: string }>().toExtend<MemberToInsert>();
    // What the HTTP parsers give back is what the methods take.
    expectTypeOf(parseRoomCreation).returns.toExtend<RoomCreationFields>();
    expectTypeOf(parseRoomEdit).returns.toExtend<RoomEditableFields>();
    expectTypeOf(parseMemberToInsert).returns.toEqualTypeOf<MemberToInsertInput>();
    expectTypeOf(parseMemberToInsert).returns.toExtend<MemberToInsert>();
    expectTypeOf(parseForwardMessages).returns.toExtend<readonly ForwardedMessage[]>();
    expectTypeOf(parseRoomCreation).parameter(0).toBeUnknown();
    expectTypeOf(httpStatusOf).returns.toEqualTypeOf<number | undefined>();

    const chat = createChatService();
    // @ts-expect-error a room type the library does not have
    void (() => chat.createRoom(alice, { type: 'channel' }));
    // @ts-expect-error a body of unknown shape does not compile: parse it, or wrap it in requestBody()
    void ((body: unknown) => chat.addMember(alice, 'room', body));
    // @ts-expect-error a typo in an option is a compile error too
    void (() => createChatService({ stores: createMemoryChatStore() }));
    // @ts-expect-error a typo in a limit
    void (() => createChatService({ limits: { maxRoomMember: 3 } }));
  });

  it('adds a member with only a userId: owner and historyCleared default to false', async () => {
    const chat = createChatService();
    const room = await chat.createRoom(alice, { type: 'temporary', name: 'Team' });
    const added = await chat.addMember(alice, room.id, { userId: bobId });
    expect(added).toMatchObject({ userId: bobId, owner: false });
    const members = await chat.listMembers(alice, room.id);
    expect(members.find((member) => member.userId === bobId)).toMatchObject({ owner: false });
  });

  it('keeps the HTTP shape strict: MemberToInsert needs all three fields', () => {
    const error = refusal(() => parseMemberToInsert({ userId: bobId }));
    expect(isChatError(error, 'invalid_input')).toBe(true);
    expect((error as Error).message).toContain('owner');
    expect(parseMemberToInsert({ userId: bobId.toUpperCase(), owner: true, historyCleared: false })).toEqual({
      userId: bobId,
      owner: true,
      historyCleared: false,
    });
  });

  it('checks a requestBody() with the original API rules, after the access checks', async () => {
    const chat = createChatService();
    const room = await chat.createRoom(alice, requestBody({ type: 'TEMPORARY', name: 'Team', extra: 1 }));
    expect(room.type).toBe('temporary');
    // The HTTP shape: owner and historyCleared are required.
    await expect(chat.addMember(alice, room.id, requestBody({ userId: bobId }))).rejects.toMatchObject({
      code: 'invalid_input',
    });
    // Someone outside the room learns that first, whatever the body.
    const outsider = { userId: '0190d5b0-7a2c-7b3e-9f10-3c5d7e9a1b22' };
    await expect(chat.addMember(outsider, room.id, requestBody({ nonsense: true }))).rejects.toMatchObject({
      code: 'not_a_member',
    });
    await expect(chat.forwardMessages(outsider, room.id, requestBody({}))).rejects.toMatchObject({
      code: 'not_a_member',
    });
  });

  it('refuses unknown keys of typed inputs at run time (a JavaScript caller)', async () => {
    const chat = createChatService();
    const room = await chat.createRoom(alice, { type: 'temporary', name: 'Team' });
    await expect(
      chat.addMember(alice, room.id, { userId: bobId, isOwner: true } as MemberToInsert),
    ).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringContaining('`isOwner`') });
  });

  it('refuses a typo in any options object, naming the key', () => {
    const cases: [string, () => unknown][] = [
      ['stores', () => createChatService({ stores: createMemoryChatStore() } as never)],
      ['limits.maxRoomMember', () => createChatService({ limits: { maxRoomMember: 3 } } as never)],
      ['directry', () => createDiskBlobStore({ directry: '/tmp/x' } as never)],
      ['onListenerErr', () => createMemoryEventBus({ onListenerErr: () => {} } as never)],
      ['maxParticipant', () => createMemoryMediaServer({ maxParticipant: 3 } as never)],
      [
        'limits.maxParticipant',
        () =>
          createMeetingService({ store: createMemoryChatStore(), limits: { maxParticipant: 3 } } as never),
      ],
    ];
    for (const [key, create] of cases) {
      const error = refusal(create);
      expect(isChatError(error, 'invalid_input'), key).toBe(true);
      expect((error as Error).message).toContain(`\`${key}\``);
    }
  });

  it('maps every error code to an HTTP status', () => {
    expect(Object.keys(chatErrorHttpStatus).sort()).toEqual([...chatErrorCodes].sort());
    const unavailable = new ChatError('dependency_unavailable', 'away', {
      details: { retryAfterSeconds: 7 },
    });
    expect(httpStatusOf(unavailable)).toBe(503);
    expect(retryAfterSecondsOf(unavailable)).toBe(7);
    expect(httpStatusOf(new Error('other'))).toBeUndefined();
    expect(retryAfterSecondsOf(new Error('other'))).toBeUndefined();
  });
});
