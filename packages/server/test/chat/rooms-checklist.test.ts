import { createManualClock, type UserDirectory } from '@collab-suite/chat-domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatTestServer, chatDatabases, startChatServer, users } from './chat-test-support.js';

const ghosts = new Set<string>();
const directory: UserDirectory = { userExists: async (userId) => !ghosts.has(userId) };

describe.each(chatDatabases)('rooms checklist (reference §14) on %s', (database) => {
  let server: ChatTestServer;
  const clock = createManualClock(new Date('2024-03-01T12:00:00.000Z'));
  beforeAll(async () => {
    server = await startChatServer(database, { overrides: { users: directory, clock } });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const group = async (owner: string, others: string[], name = 'Team') => {
    const response = await server.as(owner)('POST', '/rooms', {
      json: { type: 'group', name, membersIds: others },
    });
    expect(response.status).toBe(201);
    return response.body as { id: string; updatedAt: string };
  };

  describe('GET /rooms', () => {
    it('lists rooms with empty members and no userSettings by default', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      const room = await group(a, [b, c]);
      const response = await server.as(b)('GET', '/rooms');
      expect(response.status).toBe(200);
      expect(response.body).toEqual([
        {
          id: room.id,
          type: 'group',
          name: 'Team',
          description: '',
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          members: [],
        },
      ]);
    });

    it('adds members, settings, or both (repeated or comma-joined)', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      await group(a, [b, c]);
      const members = await server.as(a)('GET', '/rooms?extraFields=members');
      expect(members.body[0].members).toEqual([
        { userId: a, owner: true },
        ...[b, c].sort().map((userId) => ({ userId, owner: false })),
      ]);
      expect(members.body[0]).not.toHaveProperty('userSettings');
      const settings = await server.as(a)('GET', '/rooms?extraFields=settings');
      expect(settings.body[0]).toMatchObject({ members: [], userSettings: { muted: false } });
      for (const query of ['extraFields=members&extraFields=settings', 'extraFields=members,settings']) {
        const both = await server.as(a)('GET', `/rooms?${query}`);
        expect(both.status).toBe(200);
        expect(both.body[0].members).toHaveLength(3);
        expect(both.body[0].userSettings).toEqual({ muted: false });
      }
    });

    it('answers [] for a user in no room and 400 for an unknown extraFields value', async () => {
      const { a } = users('a');
      expect(await server.as(a)('GET', '/rooms')).toMatchObject({ status: 200, body: [] });
      expect((await server.as(a)('GET', '/rooms?extraFields=avatars')).status).toBe(400);
    });
  });

  describe('POST /rooms', () => {
    it('creates a group with 3 members, the creator owner', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      const response = await server.as(a)('POST', '/rooms', {
        json: { type: 'group', name: 'Team', description: 'Desc', membersIds: [b, c] },
      });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.any(String),
        type: 'group',
        name: 'Team',
        description: 'Desc',
        createdAt: '2024-03-01T12:00:00.000Z',
        updatedAt: '2024-03-01T12:00:00.000Z',
        members: [{ userId: a, owner: true }, ...[b, c].sort().map((userId) => ({ userId, owner: false }))],
        userSettings: { muted: false },
      });
    });

    it('refuses a group or temporary room without a name, and a group with fewer than 2 invitees', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      const post = (json: unknown) => server.as(a)('POST', '/rooms', { json });
      expect((await post({ type: 'group', membersIds: [b, c] })).status).toBe(400);
      expect((await post({ type: 'temporary', membersIds: [b] })).status).toBe(400);
      const tooFew = await post({ type: 'group', name: 'n', membersIds: [b] });
      expect(tooFew).toMatchObject({ status: 400, body: { code: 'operation_not_allowed' } });
    });

    it('creates temporary rooms, also with the creator alone', async () => {
      const { a, b } = users('a', 'b');
      const withMember = await server.as(a)('POST', '/rooms', {
        json: { type: 'temporary', name: 'Call', membersIds: [b] },
      });
      expect(withMember).toMatchObject({ status: 201, body: { type: 'temporary', name: 'Call' } });
      const alone = await server.as(a)('POST', '/rooms', { json: { type: 'temporary', name: 'Solo' } });
      expect(alone.status).toBe(201);
      expect(alone.body.members).toEqual([{ userId: a, owner: true }]);
    });

    it('creates a one_to_one room with empty name and description and both members owners', async () => {
      const { a, b } = users('a', 'b');
      const response = await server.as(a)('POST', '/rooms', {
        json: { type: 'one_to_one', name: 'dropped', description: 'dropped', membersIds: [b] },
      });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ type: 'one_to_one', name: '', description: '' });
      expect(response.body.members).toEqual([a, b].sort().map((userId) => ({ userId, owner: true })));
      const again = await server.as(b)('POST', '/rooms', { json: { type: 'one_to_one', membersIds: [a] } });
      expect(again).toMatchObject({ status: 409, body: { code: 'one_to_one_exists' } });
    });

    it('refuses bad member lists: 2 one_to_one invitees, duplicates, the requester, unknown users', async () => {
      const { a, b, c, ghost } = users('a', 'b', 'c', 'ghost');
      ghosts.add(ghost);
      const post = (json: unknown) => server.as(a)('POST', '/rooms', { json });
      expect((await post({ type: 'one_to_one', membersIds: [b, c] })).status).toBe(400);
      expect((await post({ type: 'group', name: 'n', membersIds: [b, b, c] })).status).toBe(400);
      expect((await post({ type: 'group', name: 'n', membersIds: [a, b, c] })).status).toBe(400);
      const unknown = await post({ type: 'group', name: 'n', membersIds: [b, ghost] });
      expect(unknown).toMatchObject({ status: 404, body: { code: 'user_not_found' } });
      expect(await server.as(b)('GET', '/rooms')).toMatchObject({ status: 200, body: [] });
    });
  });

  describe('GET /rooms/{id}', () => {
    it('answers the room with members and settings, 404 when unknown and 403 to outsiders', async () => {
      const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
      const room = await group(a, [b, c]);
      const response = await server.as(c)('GET', `/rooms/${room.id}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: room.id, userSettings: { muted: false } });
      expect(response.body.members).toHaveLength(3);
      expect(response.body).not.toHaveProperty('pictureUpdatedAt');
      expect((await server.as(a)('GET', `/rooms/${crypto.randomUUID()}`)).status).toBe(404);
      expect(await server.as(outsider)('GET', `/rooms/${room.id}`)).toMatchObject({
        status: 403,
        body: { code: 'not_a_member' },
      });
    });
  });

  describe('PUT /rooms/{id}', () => {
    it('changes name and description, name only, description only, bumping updatedAt', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      const room = await group(a, [b, c]);
      for (const json of [{ name: 'N1', description: 'D1' }, { name: 'N2' }, { description: 'D3' }]) {
        clock.advance(1000);
        const response = await server.as(a)('PUT', `/rooms/${room.id}`, { json });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ ...json, updatedAt: clock.now().toISOString() });
        expect(response.body.members).toHaveLength(3);
      }
    });

    it('answers 404 unknown, 400 one_to_one, 400 empty group body, 403 outsider and non-owner', async () => {
      const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
      const room = await group(a, [b, c]);
      const direct = await server.as(a)('POST', '/rooms', { json: { type: 'one_to_one', membersIds: [b] } });
      expect(
        (await server.as(a)('PUT', `/rooms/${crypto.randomUUID()}`, { json: { name: 'x' } })).status,
      ).toBe(404);
      expect((await server.as(a)('PUT', `/rooms/${direct.body.id}`, { json: { name: 'x' } })).status).toBe(
        400,
      );
      expect((await server.as(a)('PUT', `/rooms/${room.id}`, { json: {} })).status).toBe(400);
      expect((await server.as(outsider)('PUT', `/rooms/${room.id}`, { json: { name: 'x' } })).status).toBe(
        403,
      );
      expect(await server.as(b)('PUT', `/rooms/${room.id}`, { json: { name: 'x' } })).toMatchObject({
        status: 403,
        body: { code: 'not_an_owner' },
      });
    });
  });

  describe('DELETE /rooms/{id}', () => {
    it('deletes a group (204) and refuses one_to_one, non-owners and unknown rooms', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      const room = await group(a, [b, c]);
      const direct = await server.as(a)('POST', '/rooms', { json: { type: 'one_to_one', membersIds: [b] } });
      expect((await server.as(a)('DELETE', `/rooms/${direct.body.id}`)).status).toBe(403);
      expect((await server.as(b)('DELETE', `/rooms/${room.id}`)).status).toBe(403);
      expect(await server.as(a)('DELETE', `/rooms/${room.id}`)).toMatchObject({ status: 204, body: '' });
      expect((await server.as(a)('GET', `/rooms/${room.id}`)).status).toBe(404);
      expect((await server.as(a)('DELETE', `/rooms/${room.id}`)).status).toBe(404);
    });
  });

  describe('mute, unmute, clear', () => {
    it('mutes and unmutes with or without a settings row, idempotently', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      const room = await group(a, [b, c]);
      for (const method of ['PUT', 'PUT', 'DELETE', 'DELETE'] as const) {
        expect(await server.as(b)(method, `/rooms/${room.id}/mute`)).toMatchObject({ status: 204, body: '' });
      }
      await server.as(b)('PUT', `/rooms/${room.id}/clear`);
      expect((await server.as(b)('PUT', `/rooms/${room.id}/mute`)).status).toBe(204);
      expect((await server.as(b)('GET', `/rooms/${room.id}`)).body.userSettings.muted).toBe(true);
      expect((await server.as(a)('GET', `/rooms/${room.id}`)).body.userSettings.muted).toBe(false);
      expect((await server.as(b)('DELETE', `/rooms/${room.id}/mute`)).status).toBe(204);
      expect((await server.as(b)('GET', `/rooms/${room.id}`)).body.userSettings.muted).toBe(false);
    });

    it('clears history with or without a settings row and answers clearedAt', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      const room = await group(a, [b, c]);
      clock.advance(5);
      const first = await server.as(b)('PUT', `/rooms/${room.id}/clear`);
      expect(first).toMatchObject({ status: 200, body: { clearedAt: clock.now().toISOString() } });
      clock.advance(5);
      const second = await server.as(b)('PUT', `/rooms/${room.id}/clear`);
      expect(second.body.clearedAt).toBe(clock.now().toISOString());
      expect((await server.as(b)('GET', `/rooms/${room.id}`)).body.userSettings).toEqual({
        muted: false,
        clearedAt: second.body.clearedAt,
      });
    });

    it('answers 403 to outsiders and 404 for unknown rooms', async () => {
      const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
      const room = await group(a, [b, c]);
      for (const [method, suffix] of [
        ['PUT', 'mute'],
        ['DELETE', 'mute'],
        ['PUT', 'clear'],
      ] as const) {
        expect((await server.as(outsider)(method, `/rooms/${room.id}/${suffix}`)).status).toBe(403);
        expect((await server.as(a)(method, `/rooms/${crypto.randomUUID()}/${suffix}`)).status).toBe(404);
      }
    });
  });
});
