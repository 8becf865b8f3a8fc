import { randomUUID } from 'node:crypto';
import {
  type BlobStore,
  type ChatEvent,
  createChatService,
  createManualClock,
  createMemoryBlobStore,
  createMemoryChatStore,
  createMemoryEventBus,
  createStaticUserDirectory,
  type EventBus,
} from '@collab-suite/chat-domain';
import { describe, expect, it } from 'vitest';

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const alice = { userId: randomUUID() };
const bob = { userId: randomUUID() };
const carol = { userId: randomUUID() };

async function setup(overrides: { blobs?: BlobStore; events?: EventBus } = {}) {
  const events = overrides.events ?? createMemoryEventBus();
  const blobs = overrides.blobs ?? createMemoryBlobStore();
  const clock = createManualClock();
  const store = createMemoryChatStore();
  const backgroundErrors: string[] = [];
  const service = createChatService({
    store,
    blobs,
    events,
    clock,
    onBackgroundError: (_error, context) => backgroundErrors.push(context),
  });
  const received = new Map<string, ChatEvent[]>();
  for (const actor of [alice, bob, carol]) {
    received.set(actor.userId, []);
    await events.subscribe(actor.userId, (delivery) => received.get(actor.userId)?.push(delivery.event));
  }
  const types = (actor: { userId: string }) => (received.get(actor.userId) ?? []).map((event) => event.type);
  const group = () =>
    service.createRoom(alice, { type: 'group', name: 'Team', membersIds: [bob.userId, carol.userId] });
  return { service, store, blobs, clock, types, received, group, backgroundErrors };
}

describe('chat service', () => {
  it('creates a group, announces it to every member and sends memberAdded for each invitee', async () => {
    const { group, types } = await setup();
    const room = await group();
    expect(room.members).toEqual([
      { userId: alice.userId, owner: true },
      ...[bob.userId, carol.userId].sort().map((userId) => ({ userId, owner: false })),
    ]);
    expect(room.userSettings).toEqual({ muted: false });
    expect(types(bob)).toEqual(['ROOM_CREATED', 'ROOM_SYSTEM_MESSAGE', 'ROOM_SYSTEM_MESSAGE']);
  });

  it('refuses invitees the directory does not know, after the type rules', async () => {
    const service = createChatService({ users: createStaticUserDirectory([bob.userId]) });
    await expect(
      service.createRoom(alice, { type: 'group', name: 'n', membersIds: [bob.userId, carol.userId] }),
    ).rejects.toMatchObject({
      code: 'user_not_found',
    });
    await expect(
      service.createRoom(alice, { type: 'group', name: 'n', membersIds: [carol.userId] }),
    ).rejects.toMatchObject({
      code: 'operation_not_allowed',
    });
  });

  it('refuses a second one_to_one room between the same users in either direction', async () => {
    const { service } = await setup();
    const room = await service.createRoom(alice, { type: 'one_to_one', membersIds: [bob.userId] });
    expect(room).toMatchObject({ name: '', description: '' });
    await expect(
      service.createRoom(bob, { type: 'one_to_one', membersIds: [alice.userId] }),
    ).rejects.toMatchObject({
      code: 'one_to_one_exists',
    });
  });

  it('bumps updatedAt and tells members only when something changed', async () => {
    const { service, group, clock, types } = await setup();
    const room = await group();
    clock.advance(1000);
    const same = await service.updateRoom(alice, room.id, { name: 'Team' });
    expect(same.updatedAt).toBe(room.updatedAt);
    const renamed = await service.updateRoom(alice, room.id, { name: 'Renamed' });
    expect(renamed).toMatchObject({ name: 'Renamed', updatedAt: '2024-01-01T00:00:01.000Z' });
    expect(renamed.members).toHaveLength(3);
    expect(types(carol).filter((type) => type === 'ROOM_UPDATED')).toHaveLength(1);
  });

  it('deletes the room when its last member leaves and tells the leaver', async () => {
    const { service, types } = await setup();
    const room = await service.createRoom(alice, { type: 'temporary', name: 'Call' });
    await service.removeMember(alice, room.id, alice.userId);
    await expect(service.getRoom(alice, room.id)).rejects.toMatchObject({ code: 'room_not_found' });
    expect(types(alice).slice(-2)).toEqual(['ROOM_SYSTEM_MESSAGE', 'ROOM_DELETED']);
  });

  it('two owners demoting each other at once: the first wins and the second is no owner any more', async () => {
    const { service, group, store } = await setup();
    const room = await group();
    await service.setOwner(alice, room.id, bob.userId, true);
    const outcomes = await Promise.allSettled([
      service.setOwner(alice, room.id, bob.userId, false),
      service.setOwner(bob, room.id, alice.userId, false),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
    expect(outcomes[1]).toMatchObject({ reason: { code: 'not_an_owner' } });
    const owners = (await store.listMembers(room.id)).filter((member) => member.owner);
    expect(owners.map((member) => member.userId)).toEqual([alice.userId]);
  });

  it('sends mute, unmute and clear events to the caller only and mutes idempotently', async () => {
    const { service, group, types } = await setup();
    const room = await group();
    await service.muteRoom(bob, room.id);
    await service.muteRoom(bob, room.id);
    await service.unmuteRoom(bob, room.id);
    const { clearedAt } = await service.clearHistory(bob, room.id);
    expect(types(bob).slice(-3)).toEqual(['ROOM_MUTED', 'ROOM_UNMUTED', 'ROOM_HISTORY_CLEARED']);
    expect(types(alice)).not.toContain('ROOM_MUTED');
    expect((await service.getRoom(bob, room.id)).userSettings).toEqual({ muted: false, clearedAt });
  });

  it('removes picture and attachment bytes with the room', async () => {
    const { service, group, blobs } = await setup();
    const room = await group();
    await service.setPicture(alice, room.id, { fileName: 'p.png', mimeType: 'image/png', content: png });
    await service.uploadAttachment(bob, room.id, {
      fileName: 'a.txt',
      mimeType: 'text/plain',
      content: Buffer.from('a'),
    });
    expect((blobs as ReturnType<typeof createMemoryBlobStore>).keys()).toHaveLength(2);
    await service.deleteRoom(alice, room.id);
    expect((blobs as ReturnType<typeof createMemoryBlobStore>).keys()).toEqual([]);
  });

  it('leaves nothing reachable when blob deletion fails midway, and a later purge finishes the job', async () => {
    const inner = createMemoryBlobStore();
    let failDeletes = true;
    const flaky: BlobStore = {
      ...inner,
      delete: async (key) => {
        if (failDeletes) throw new Error('disk unavailable');
        await inner.delete(key);
      },
    };
    const { service, group, store, backgroundErrors } = await setup({ blobs: flaky });
    const room = await group();
    const { id } = await service.uploadAttachment(bob, room.id, {
      fileName: 'a',
      mimeType: 'text/plain',
      content: Buffer.from('a'),
    });
    await service.deleteRoom(alice, room.id);
    await expect(service.getRoom(alice, room.id)).rejects.toMatchObject({ code: 'room_not_found' });
    await expect(service.getAttachment(bob, id)).rejects.toMatchObject({ code: 'attachment_not_found' });
    await expect(service.deleteRoom(alice, room.id)).rejects.toMatchObject({ code: 'room_not_found' });
    expect(backgroundErrors).toContain(`deleting blob attachments/${id}`);
    expect(inner.keys()).toEqual([`attachments/${id}`]);
    failDeletes = false;
    expect(await service.purgeDeletedBlobs()).toBe(1);
    expect(inner.keys()).toEqual([]);
    expect(await store.listPendingBlobDeletions(10)).toEqual([]);
  });

  it('fails a forward whose delivery fails, and reports other delivery failures in the background', async () => {
    const broken: EventBus = {
      publish: async () => {
        throw new Error('bus down');
      },
      subscribe: async () => ({ unsubscribe: async () => {} }),
      checkHealth: async () => ({ ready: false, reason: 'bus down' }),
      close: async () => {},
    };
    const { service, group, backgroundErrors } = await setup({ events: broken });
    const room = await group();
    expect(backgroundErrors).toContain('publishing ROOM_CREATED');
    await expect(service.forwardMessages(bob, room.id, [{ originalMessage: 'hello' }])).rejects.toMatchObject(
      {
        code: 'dependency_failed',
      },
    );
  });

  it('forwards an attachment as a copy owned by the forwarder in the destination room', async () => {
    const { service, group, received } = await setup();
    const source = await group();
    const target = await service.createRoom(bob, { type: 'temporary', name: 'Elsewhere' });
    const { id } = await service.uploadAttachment(alice, source.id, {
      fileName: 'a.txt',
      mimeType: 'text/plain',
      content: Buffer.from('abc'),
    });
    const stanza = `<message><x><operation>attachmentAdded</operation><attachment-id>${id}</attachment-id></x><body/></message>`;
    await service.forwardMessages(bob, target.id, [{ originalMessage: stanza, description: 'look' }]);
    const page = await service.listAttachments(bob, target.id, {});
    expect(page.attachments).toEqual([
      expect.objectContaining({ name: 'a.txt', size: 3, userId: bob.userId, roomId: target.id }),
    ]);
    const forwarded = received.get(bob.userId)?.find((event) => event.type === 'ROOM_MESSAGE_FORWARDED');
    expect(forwarded).toMatchObject({
      count: 1,
      description: 'look',
      attachment: { id: page.attachments[0]?.id },
    });
    await expect(
      service.forwardMessages(carol, source.id, [{ originalMessage: stanza.replace(id, target.id) }]),
    ).rejects.toMatchObject({
      code: 'attachment_not_found',
    });
  });

  it('refuses an attachment whose declared size is past the limit before reading it', async () => {
    const service = createChatService({ limits: { maxAttachmentBytes: 4 } });
    const room = await service.createRoom(alice, { type: 'temporary', name: 't' });
    const never: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => {
        throw new Error('the body must not be read');
      },
    };
    await expect(
      service.uploadAttachment(alice, room.id, {
        fileName: 'a',
        mimeType: 'text/plain',
        declaredSize: 5,
        content: never,
      }),
    ).rejects.toMatchObject({ code: 'payload_too_large' });
    await expect(
      service.uploadAttachment(alice, room.id, {
        fileName: 'a',
        mimeType: 'text/plain',
        content: Buffer.from('12345'),
      }),
    ).rejects.toMatchObject({ code: 'payload_too_large' });
    expect((await service.listAttachments(alice, room.id, {})).attachments).toEqual([]);
  });

  it('refuses more forwarded messages, or longer ones, than its limits', async () => {
    const service = createChatService({ limits: { maxForwardedMessages: 2, maxOriginalMessageLength: 10 } });
    const room = await service.createRoom(alice, { type: 'temporary', name: 't' });
    const items = (count: number, text = 'hi') =>
      Array.from({ length: count }, () => ({ originalMessage: text }));
    await service.forwardMessages(alice, room.id, items(2));
    await expect(service.forwardMessages(alice, room.id, items(3))).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(service.forwardMessages(alice, room.id, items(1, 'x'.repeat(11)))).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('pages attachments by defaultAttachmentsPage and refuses an itemsNumber past maxAttachmentsPage', async () => {
    const service = createChatService({ limits: { defaultAttachmentsPage: 2, maxAttachmentsPage: 3 } });
    const room = await service.createRoom(alice, { type: 'temporary', name: 't' });
    for (const name of ['a', 'b', 'c']) {
      await service.uploadAttachment(alice, room.id, {
        fileName: name,
        mimeType: 'text/plain',
        content: Buffer.from(name),
      });
    }
    const first = await service.listAttachments(alice, room.id, {});
    expect(first.attachments).toHaveLength(2);
    expect(first.filter).toEqual(expect.any(String));
    const rest = await service.listAttachments(alice, room.id, { filter: first.filter });
    expect(rest.attachments).toHaveLength(1);
    expect(rest).not.toHaveProperty('filter');
    expect((await service.listAttachments(alice, room.id, { itemsNumber: '3' })).attachments).toHaveLength(3);
    await expect(service.listAttachments(alice, room.id, { itemsNumber: '4' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('3'),
    });
  });

  it('refuses bad options with a clear message', () => {
    expect(() => createChatService({ limits: { maxRoomMembers: 1 } })).toThrow(/maxRoomMembers/);
    expect(() => createChatService({ store: {} as never })).toThrow(/ChatStore/);
  });
});
