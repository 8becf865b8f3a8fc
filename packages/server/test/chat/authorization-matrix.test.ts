import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { testJwtSecret } from '../support/test-server.js';
import {
  type CallOptions,
  type ChatTestServer,
  chatDatabases,
  onePixelPng,
  startChatServer,
  users,
} from './chat-test-support.js';

interface Fixture {
  roomId: string;
  attachmentId: string;
  plainMemberId: string;
  otherMemberId: string;
}

interface RouteCase {
  name: string;
  method: string;
  path: (fixture: Fixture) => string;
  options?: (fixture: Fixture) => CallOptions;
  /** Status for a member who is not an owner. */
  member: number;
}

const upload = {
  body: 'x',
  headers: { fileName: 'a.txt', mimeType: 'text/plain', 'content-type': 'application/octet-stream' },
};
const picture = {
  body: onePixelPng,
  headers: { fileName: 'p.png', mimeType: 'image/png', 'content-type': 'application/octet-stream' },
};

/** Every room route, with the status a non-owner member gets; outsiders always get 403. */
const routes: RouteCase[] = [
  { name: 'GET room', method: 'GET', path: (f) => `/rooms/${f.roomId}`, member: 200 },
  {
    name: 'PUT room',
    method: 'PUT',
    path: (f) => `/rooms/${f.roomId}`,
    options: () => ({ json: { name: 'x' } }),
    member: 403,
  },
  { name: 'DELETE room', method: 'DELETE', path: (f) => `/rooms/${f.roomId}`, member: 403 },
  { name: 'GET picture', method: 'GET', path: (f) => `/rooms/${f.roomId}/picture`, member: 200 },
  {
    name: 'PUT picture',
    method: 'PUT',
    path: (f) => `/rooms/${f.roomId}/picture`,
    options: () => picture,
    member: 403,
  },
  { name: 'DELETE picture', method: 'DELETE', path: (f) => `/rooms/${f.roomId}/picture`, member: 403 },
  { name: 'PUT mute', method: 'PUT', path: (f) => `/rooms/${f.roomId}/mute`, member: 204 },
  { name: 'DELETE mute', method: 'DELETE', path: (f) => `/rooms/${f.roomId}/mute`, member: 204 },
  { name: 'PUT clear', method: 'PUT', path: (f) => `/rooms/${f.roomId}/clear`, member: 200 },
  { name: 'GET members', method: 'GET', path: (f) => `/rooms/${f.roomId}/members`, member: 200 },
  {
    name: 'POST members',
    method: 'POST',
    path: (f) => `/rooms/${f.roomId}/members`,
    options: () => ({ json: { userId: crypto.randomUUID(), owner: false, historyCleared: false } }),
    member: 403,
  },
  {
    name: 'DELETE member',
    method: 'DELETE',
    path: (f) => `/rooms/${f.roomId}/members/${f.otherMemberId}`,
    member: 403,
  },
  {
    name: 'PUT owner',
    method: 'PUT',
    path: (f) => `/rooms/${f.roomId}/members/${f.otherMemberId}/owner`,
    member: 403,
  },
  {
    name: 'DELETE owner',
    method: 'DELETE',
    path: (f) => `/rooms/${f.roomId}/members/${f.otherMemberId}/owner`,
    member: 403,
  },
  { name: 'GET attachments', method: 'GET', path: (f) => `/rooms/${f.roomId}/attachments`, member: 200 },
  {
    name: 'POST attachment',
    method: 'POST',
    path: (f) => `/rooms/${f.roomId}/attachments`,
    options: () => upload,
    member: 201,
  },
  {
    name: 'POST forward',
    method: 'POST',
    path: (f) => `/rooms/${f.roomId}/forward`,
    options: () => ({ json: [{ originalMessage: 'hi' }] }),
    member: 204,
  },
  { name: 'GET attachment', method: 'GET', path: (f) => `/attachments/${f.attachmentId}`, member: 200 },
  {
    name: 'GET download',
    method: 'GET',
    path: (f) => `/attachments/${f.attachmentId}/download`,
    member: 200,
  },
  { name: 'DELETE attachment', method: 'DELETE', path: (f) => `/attachments/${f.attachmentId}`, member: 403 },
];

describe.each(chatDatabases)('authorisation matrix on %s', (database) => {
  let server: ChatTestServer;
  beforeAll(async () => {
    server = await startChatServer(database);
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function fixture(): Promise<Fixture & { ownerId: string }> {
    const { owner, member, other } = users('owner', 'member', 'other');
    const room = await server.as(owner)('POST', '/rooms', {
      json: { type: 'group', name: 'Private name', membersIds: [member, other] },
    });
    await server.as(owner)('PUT', `/rooms/${room.body.id}/picture`, picture);
    const attachment = await server.as(owner)('POST', `/rooms/${room.body.id}/attachments`, upload);
    return {
      ownerId: owner,
      roomId: room.body.id,
      attachmentId: attachment.body.id,
      plainMemberId: member,
      otherMemberId: other,
    };
  }

  it.each(routes)('$name: outsiders get 403 with no room data', async (route) => {
    const current = await fixture();
    const { outsider } = users('outsider');
    const response = await server.as(outsider)(route.method, route.path(current), route.options?.(current));
    expect(response.status).toBe(403);
    expect(Object.keys(response.body).sort()).toEqual(['code', 'message']);
    expect(response.bytes.toString()).not.toContain('Private name');
    expect((await server.as(current.ownerId)('GET', `/rooms/${current.roomId}`)).status).toBe(200);
  });

  it.each(routes)('$name: a member who is not an owner gets $member', async (route) => {
    const current = await fixture();
    const response = await server.as(current.plainMemberId)(
      route.method,
      route.path(current),
      route.options?.(current),
    );
    expect(response.status).toBe(route.member);
  });

  it.each(routes)('$name: no token gets 401', async (route) => {
    const current = await fixture();
    const response = await server.as(current.ownerId)(route.method, route.path(current), {
      ...route.options?.(current),
      anonymous: true,
    });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 'unauthenticated' });
  });

  it('refuses bad tokens, tokens whose subject is not a UUID, and accepts the ZM_AUTH_TOKEN cookie', async () => {
    const current = await fixture();
    const call = (headers: Record<string, string>) =>
      server.as(current.ownerId)('GET', '/rooms', { anonymous: true, headers });
    expect((await call({ authorization: 'Bearer not.a.token' })).status).toBe(401);
    expect(
      (
        await call({
          authorization: `Bearer ${await signLocalToken('another-secret-of-enough-length!!', { userId: current.ownerId })}`,
        })
      ).status,
    ).toBe(401);
    expect(
      (await call({ authorization: `Bearer ${await signLocalToken(testJwtSecret, { userId: 'alice' })}` }))
        .status,
    ).toBe(401);
    const cookie = await call({ cookie: `ZM_AUTH_TOKEN=${await server.token(current.ownerId)}` });
    expect(cookie.status).toBe(200);
    expect(cookie.body.map((room: { id: string }) => room.id)).toEqual([current.roomId]);
  });

  it("never lists another user's rooms", async () => {
    const current = await fixture();
    const { outsider } = users('outsider');
    expect((await server.as(outsider)('GET', '/rooms?extraFields=members,settings')).body).toEqual([]);
    expect((await server.as(current.otherMemberId)('GET', '/rooms')).body).toHaveLength(1);
  });
});
