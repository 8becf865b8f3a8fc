import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChatService, type ChatStore, createChatService } from '@collab-suite/chat-domain';
import { createSqliteChatStore } from '@collab-suite/chat-domain/sqlite';
import { eventually, type PrivateEjabberd } from '@collab-suite/chat-domain/testing';
import { createXmppMirror, type XmppMirror } from '@collab-suite/chat-domain/xmpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDocumentedEjabberd } from './documented-ejabberd.js';

const alice = { userId: randomUUID() };
const bob = { userId: randomUUID() };
const carol = { userId: randomUUID() };

describe('the XMPP mirror against a private ejabberd', () => {
  let ejabberd: PrivateEjabberd;
  let folder: string;
  let store: ChatStore;
  let mirror: XmppMirror;
  let service: ChatService;
  const mirrorErrors: string[] = [];
  const repairs: [string, string[]][] = [];

  const command = async (name: string, body: Record<string, unknown>) => {
    const response = await fetch(`${ejabberd.apiUrl}/${name}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    return response.json();
  };
  const affiliations = async (roomId: string) => {
    const answer = await command('get_room_affiliations', { name: roomId, service: ejabberd.mucDomain });
    if (!Array.isArray(answer)) return answer;
    return Object.fromEntries(
      answer.map((entry: { username: string; affiliation: string }) => [entry.username, entry.affiliation]),
    );
  };
  const subscribers = async (roomId: string) =>
    ((await command('get_subscribers', { name: roomId, service: ejabberd.mucDomain })) as string[])
      .map((jid) => jid.split('@')[0])
      .sort();

  beforeAll(async () => {
    ejabberd = await startDocumentedEjabberd({ jwtSecret: 'mirror-test-secret-0123456789abcdef' });
    folder = await mkdtemp(join(tmpdir(), 'xmpp-mirror-'));
    store = createSqliteChatStore({ filename: join(folder, 'chat.db') });
    mirror = createXmppMirror({
      store,
      apiUrl: ejabberd.apiUrl,
      domain: ejabberd.domain,
      mucDomain: ejabberd.mucDomain,
      retryBaseMs: 50,
      retryMaxMs: 500,
      onError: (_error, context) => mirrorErrors.push(context),
      onOptionsRepaired: (roomId, options) => repairs.push([roomId, options]),
    });
    await mirror.start();
    service = createChatService({ store, dispatcher: mirror });
  }, 120_000);
  afterAll(async () => {
    await mirror?.close();
    await store?.close();
    await ejabberd?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  it('mirrors a created group with every member (owners too) a MUC member, subscribed, in a private room', async () => {
    const room = await service.createRoom(alice, {
      type: 'group',
      name: 'Team',
      description: 'The team',
      membersIds: [bob.userId, carol.userId],
    });
    await mirror.idle();
    expect(await affiliations(room.id)).toEqual({
      [alice.userId]: 'member',
      [bob.userId]: 'member',
      [carol.userId]: 'member',
    });
    expect(await subscribers(room.id)).toEqual([alice.userId, bob.userId, carol.userId].sort());
    const options = await command('get_room_options', { name: room.id, service: ejabberd.mucDomain });
    expect(options).toMatchObject({
      title: 'Team',
      description: 'The team',
      members_only: 'true',
      persistent: 'true',
      mam: 'true',
      public: 'false',
      public_list: 'false',
    });
  });

  it('sets back privacy options changed in ejabberd at the next sync of the room, and says so', async () => {
    const room = await service.createRoom(alice, {
      type: 'group',
      name: 'Drifting',
      membersIds: [bob.userId, carol.userId],
    });
    await mirror.idle();
    const name = { name: room.id, service: ejabberd.mucDomain };
    await command('change_room_option', { ...name, option: 'members_only', value: 'false' });
    await command('change_room_option', { ...name, option: 'public', value: 'true' });
    await service.updateRoom(alice, room.id, { name: 'Drifting back' });
    await mirror.idle();
    expect(await command('get_room_options', name)).toMatchObject({
      title: 'Drifting back',
      members_only: 'true',
      public: 'false',
    });
    expect(repairs).toContainEqual([room.id, ['members_only', 'public']]);
  });

  it('follows renames and removals, keeps owners MUC members, and destroys a deleted room', async () => {
    const room = await service.createRoom(alice, {
      type: 'group',
      name: 'Before',
      membersIds: [bob.userId, carol.userId],
    });
    await service.updateRoom(alice, room.id, { name: 'After' });
    await service.setOwner(alice, room.id, bob.userId, true);
    await service.removeMember(alice, room.id, carol.userId);
    await mirror.idle();
    expect(await affiliations(room.id)).toEqual({ [alice.userId]: 'member', [bob.userId]: 'member' });
    expect(await subscribers(room.id)).toEqual([alice.userId, bob.userId].sort());
    expect(await command('get_room_options', { name: room.id, service: ejabberd.mucDomain })).toMatchObject({
      title: 'After',
    });
    await service.setOwner(alice, room.id, bob.userId, false);
    await mirror.idle();
    expect(await affiliations(room.id)).toEqual({ [alice.userId]: 'member', [bob.userId]: 'member' });
    await service.deleteRoom(alice, room.id);
    await mirror.idle();
    // ejabberd destroys a room asynchronously after answering destroy_room.
    await eventually(async () => {
      expect(await command('muc_online_rooms', { service: ejabberd.mucDomain })).not.toContain(
        `${room.id}@${ejabberd.mucDomain}`,
      );
    });
  });

  it('keeps room changes made while ejabberd is down and applies them once it is back', async () => {
    const kept = await service.createRoom(alice, {
      type: 'group',
      name: 'Kept',
      membersIds: [bob.userId, carol.userId],
    });
    const doomed = await service.createRoom(alice, {
      type: 'group',
      name: 'Doomed',
      membersIds: [bob.userId, carol.userId],
    });
    await mirror.idle();
    await ejabberd.halt();
    const fresh = await service.createRoom(bob, {
      type: 'group',
      name: 'Fresh',
      membersIds: [alice.userId, carol.userId],
    });
    await service.removeMember(alice, kept.id, carol.userId);
    await service.deleteRoom(alice, doomed.id);
    expect(await store.countMirrorOperations()).toBeGreaterThan(0);
    const failuresBefore = mirrorErrors.length;
    await ejabberd.restart();
    await mirror.idle();
    expect(mirrorErrors.length).toBeGreaterThan(failuresBefore);
    expect(await store.countMirrorOperations()).toBe(0);
    expect(await affiliations(fresh.id)).toEqual({
      [bob.userId]: 'member',
      [alice.userId]: 'member',
      [carol.userId]: 'member',
    });
    expect(await affiliations(kept.id)).toEqual({ [alice.userId]: 'member', [bob.userId]: 'member' });
    await eventually(async () => {
      const rooms = await command('muc_online_rooms', { service: ejabberd.mucDomain });
      expect(rooms).not.toContain(`${doomed.id}@${ejabberd.mucDomain}`);
    });
    // Every room, including the first test's (untouched since), came back members-only from
    // ejabberd's database: nothing to repair.
    const report = await mirror.resync();
    expect(report.optionsRepaired).toEqual([]);
    expect(report.changedRoomIds).toEqual([]);
    expect(report.roomsChecked).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('resync recreates rooms a new server lacks and destroys rooms the store does not have', async () => {
    const room = await service.createRoom(alice, {
      type: 'group',
      name: 'Lost',
      membersIds: [bob.userId, carol.userId],
    });
    await mirror.idle();
    await command('destroy_room', { name: room.id, service: ejabberd.mucDomain });
    const stray = randomUUID();
    await command('create_room_with_opts', {
      name: stray,
      service: ejabberd.mucDomain,
      host: ejabberd.domain,
      options: [],
    });
    await eventually(async () => {
      expect(await command('muc_online_rooms', { service: ejabberd.mucDomain })).not.toContain(
        `${room.id}@${ejabberd.mucDomain}`,
      );
    });
    const report = await mirror.resync();
    expect(report.roomsCreated).toBe(1);
    expect(report.roomsDestroyed).toBe(1);
    expect(report.changedRoomIds.sort()).toEqual([room.id, stray].sort());
    expect(await affiliations(room.id)).toMatchObject({ [alice.userId]: 'member' });
    const again = await mirror.resync();
    expect(again.changedRoomIds).toEqual([]);
    expect(again).toMatchObject({
      roomsCreated: 0,
      roomsDestroyed: 0,
      affiliationsChanged: 0,
      subscriptionsChanged: 0,
    });
  });
});
