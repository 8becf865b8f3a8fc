import { randomUUID } from 'node:crypto';
import type { UserDirectory } from '@collab-suite/chat-domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatTestServer, chatDatabases, startChatServer, users } from './chat-test-support.js';

const ghosts = new Set<string>();
const directory: UserDirectory = { userExists: async (userId) => !ghosts.has(userId) };

describe.each(chatDatabases)('members checklist (reference §14) on %s', (database) => {
  let server: ChatTestServer;
  beforeAll(async () => {
    server = await startChatServer(database, { overrides: { users: directory } });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const group = async (owner: string, others: string[]) =>
    (await server.as(owner)('POST', '/rooms', { json: { type: 'group', name: 'Team', membersIds: others } }))
      .body as {
      id: string;
    };
  const oneToOne = async (owner: string, other: string) =>
    (await server.as(owner)('POST', '/rooms', { json: { type: 'one_to_one', membersIds: [other] } }))
      .body as { id: string };

  describe('GET /rooms/{id}/members', () => {
    it('lists members to members, 404 for unknown rooms, 403 to outsiders', async () => {
      const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
      const room = await group(a, [b, c]);
      const response = await server.as(c)('GET', `/rooms/${room.id}/members`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual([
        { userId: a, owner: true },
        ...[b, c].sort().map((userId) => ({ userId, owner: false })),
      ]);
      expect((await server.as(a)('GET', `/rooms/${randomUUID()}/members`)).status).toBe(404);
      expect((await server.as(outsider)('GET', `/rooms/${room.id}/members`)).status).toBe(403);
    });
  });

  describe('POST /rooms/{id}/members', () => {
    it('adds a member to a group (201), with clearedAt when historyCleared', async () => {
      const { a, b, c, d, e } = users('a', 'b', 'c', 'd', 'e');
      const room = await group(a, [b, c]);
      const plain = await server.as(a)('POST', `/rooms/${room.id}/members`, {
        json: { userId: d, owner: false, historyCleared: false },
      });
      expect(plain).toMatchObject({ status: 201, body: { userId: d, owner: false } });
      expect(plain.body).not.toHaveProperty('clearedAt');
      const cleared = await server.as(a)('POST', `/rooms/${room.id}/members`, {
        json: { userId: e, owner: true, historyCleared: true },
      });
      expect(cleared).toMatchObject({
        status: 201,
        body: { userId: e, owner: true, clearedAt: expect.any(String) },
      });
      const asNewMember = await server.as(e)('GET', `/rooms/${room.id}`);
      expect(asNewMember.body.userSettings).toEqual({ muted: false, clearedAt: cleared.body.clearedAt });
    });

    it('answers 400 for one_to_one rooms, existing members and a missing historyCleared', async () => {
      const { a, b, c, d } = users('a', 'b', 'c', 'd');
      const direct = await oneToOne(a, b);
      const room = await group(a, [b, c]);
      const add = (roomId: string, json: unknown) =>
        server.as(a)('POST', `/rooms/${roomId}/members`, { json });
      expect((await add(direct.id, { userId: d, owner: false, historyCleared: false })).status).toBe(400);
      expect(await add(room.id, { userId: b, owner: false, historyCleared: false })).toMatchObject({
        status: 400,
        body: { code: 'already_member' },
      });
      const missing = await add(room.id, { userId: d, owner: false });
      expect(missing).toMatchObject({
        status: 400,
        body: { code: 'invalid_input', message: expect.stringContaining('historyCleared') },
      });
    });

    it('answers 404 for unknown rooms and users without an account, 403 to non-owners', async () => {
      const { a, b, c, d, ghost } = users('a', 'b', 'c', 'd', 'ghost');
      ghosts.add(ghost);
      const room = await group(a, [b, c]);
      const member = { userId: d, owner: false, historyCleared: false };
      expect((await server.as(a)('POST', `/rooms/${randomUUID()}/members`, { json: member })).status).toBe(
        404,
      );
      expect((await server.as(b)('POST', `/rooms/${room.id}/members`, { json: member })).status).toBe(403);
      const unknownUser = await server.as(a)('POST', `/rooms/${room.id}/members`, {
        json: { ...member, userId: ghost },
      });
      expect(unknownUser).toMatchObject({ status: 404, body: { code: 'user_not_found' } });
    });
  });

  describe('DELETE /rooms/{id}/members/{userId}', () => {
    it('lets an owner kick (204) and any member leave (204)', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      const room = await group(a, [b, c]);
      expect(await server.as(a)('DELETE', `/rooms/${room.id}/members/${b}`)).toMatchObject({
        status: 204,
        body: '',
      });
      expect((await server.as(c)('DELETE', `/rooms/${room.id}/members/${c}`)).status).toBe(204);
      expect((await server.as(a)('GET', `/rooms/${room.id}/members`)).body).toEqual([
        { userId: a, owner: true },
      ]);
      expect((await server.as(b)('GET', `/rooms/${room.id}`)).status).toBe(403);
    });

    it('answers 404 unknown room, 403 non-owner kicking, 400 one_to_one, 404 target not a member', async () => {
      const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
      const room = await group(a, [b, c]);
      const direct = await oneToOne(a, b);
      expect((await server.as(a)('DELETE', `/rooms/${randomUUID()}/members/${b}`)).status).toBe(404);
      expect((await server.as(b)('DELETE', `/rooms/${room.id}/members/${c}`)).status).toBe(403);
      expect((await server.as(a)('DELETE', `/rooms/${direct.id}/members/${b}`)).status).toBe(400);
      expect((await server.as(a)('DELETE', `/rooms/${room.id}/members/${outsider}`)).status).toBe(404);
    });

    it('keeps the last owner while others remain, and deletes the room when the last member leaves', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      const room = await group(a, [b, c]);
      expect(await server.as(a)('DELETE', `/rooms/${room.id}/members/${a}`)).toMatchObject({
        status: 400,
        body: { code: 'last_owner' },
      });
      await server.as(a)('DELETE', `/rooms/${room.id}/members/${b}`);
      await server.as(a)('DELETE', `/rooms/${room.id}/members/${c}`);
      expect((await server.as(a)('DELETE', `/rooms/${room.id}/members/${a}`)).status).toBe(204);
      expect((await server.as(a)('GET', `/rooms/${room.id}`)).status).toBe(404);
    });
  });

  describe('PUT and DELETE /rooms/{id}/members/{userId}/owner', () => {
    it('promotes and demotes (204)', async () => {
      const { a, b, c } = users('a', 'b', 'c');
      const room = await group(a, [b, c]);
      expect((await server.as(a)('PUT', `/rooms/${room.id}/members/${b}/owner`)).status).toBe(204);
      expect((await server.as(a)('GET', `/rooms/${room.id}/members`)).body).toContainEqual({
        userId: b,
        owner: true,
      });
      expect((await server.as(a)('DELETE', `/rooms/${room.id}/members/${b}/owner`)).status).toBe(204);
      expect((await server.as(a)('GET', `/rooms/${room.id}/members`)).body).toContainEqual({
        userId: b,
        owner: false,
      });
    });

    it('answers 404 unknown room, 403 non-owner, 403 target not a member, 400 one_to_one, 400 self', async () => {
      const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
      const room = await group(a, [b, c]);
      const direct = await oneToOne(a, b);
      for (const method of ['PUT', 'DELETE'] as const) {
        expect((await server.as(a)(method, `/rooms/${randomUUID()}/members/${b}/owner`)).status).toBe(404);
        expect((await server.as(b)(method, `/rooms/${room.id}/members/${c}/owner`)).status).toBe(403);
        expect((await server.as(a)(method, `/rooms/${room.id}/members/${outsider}/owner`)).status).toBe(403);
        expect((await server.as(a)(method, `/rooms/${direct.id}/members/${b}/owner`)).status).toBe(400);
        expect((await server.as(a)(method, `/rooms/${room.id}/members/${a}/owner`)).status).toBe(400);
      }
    });
  });
});
