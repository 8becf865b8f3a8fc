import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallOptions, type ChatTestServer, startChatServer, users } from './chat-test-support.js';

interface BadCase {
  name: string;
  method: string;
  path: (roomId: string) => string;
  options: CallOptions;
  status: number;
}

const json = (text: string): CallOptions => ({ body: text, headers: { 'content-type': 'application/json' } });
const validMember = (userId: string) => ({ userId, owner: false, historyCleared: false });
const octets = { 'content-type': 'application/octet-stream' };

describe('bad input to the chat API', () => {
  let server: ChatTestServer;
  const { a, b, c } = users('a', 'b', 'c');
  let roomId = '';
  beforeAll(async () => {
    server = await startChatServer('sqlite');
    roomId = (
      await server.as(a)('POST', '/rooms', { json: { type: 'group', name: 'Team', membersIds: [b, c] } })
    ).body.id;
  });
  afterAll(async () => {
    await server?.stop();
  });

  const cases: BadCase[] = [
    {
      name: 'malformed JSON on POST /rooms',
      method: 'POST',
      path: () => '/rooms',
      options: json('{"type": "group",'),
      status: 400,
    },
    {
      name: 'malformed JSON on PUT /rooms/{id}',
      method: 'PUT',
      path: (id) => `/rooms/${id}`,
      options: json('{name:'),
      status: 400,
    },
    {
      name: 'malformed JSON on POST members',
      method: 'POST',
      path: (id) => `/rooms/${id}/members`,
      options: json('[}'),
      status: 400,
    },
    {
      name: 'malformed JSON on POST forward',
      method: 'POST',
      path: (id) => `/rooms/${id}/forward`,
      options: json('nope'),
      status: 400,
    },
    {
      name: 'a JSON string as body',
      method: 'POST',
      path: () => '/rooms',
      options: json('"group"'),
      status: 400,
    },
    { name: 'a JSON null as body', method: 'POST', path: () => '/rooms', options: json('null'), status: 400 },
    { name: 'no body at all', method: 'POST', path: () => '/rooms', options: {}, status: 400 },
    {
      name: 'text/plain body',
      method: 'POST',
      path: () => '/rooms',
      options: { body: '{"type":"group"}', headers: { 'content-type': 'text/plain' } },
      status: 400,
    },
    {
      name: 'name of the wrong type',
      method: 'POST',
      path: () => '/rooms',
      options: { json: { type: 'group', name: 42, membersIds: [b, c] } },
      status: 400,
    },
    {
      name: 'membersIds not an array',
      method: 'POST',
      path: () => '/rooms',
      options: { json: { type: 'group', name: 'n', membersIds: b } },
      status: 400,
    },
    {
      name: 'membersIds with numbers',
      method: 'POST',
      path: () => '/rooms',
      options: { json: { type: 'group', name: 'n', membersIds: [1, 2] } },
      status: 400,
    },
    {
      name: 'membersIds not UUIDs',
      method: 'POST',
      path: () => '/rooms',
      options: { json: { type: 'group', name: 'n', membersIds: ['bob', 'carol'] } },
      status: 400,
    },
    {
      name: 'unknown room type',
      method: 'POST',
      path: () => '/rooms',
      options: { json: { type: 'circle', name: 'n', membersIds: [b, c] } },
      status: 400,
    },
    {
      name: 'missing room type',
      method: 'POST',
      path: () => '/rooms',
      options: { json: { name: 'n', membersIds: [b, c] } },
      status: 400,
    },
    {
      name: 'name too long',
      method: 'POST',
      path: () => '/rooms',
      options: { json: { type: 'group', name: 'n'.repeat(129), membersIds: [b, c] } },
      status: 400,
    },
    {
      name: 'unknown extraFields value',
      method: 'GET',
      path: () => '/rooms?extraFields=members&extraFields=owners',
      options: {},
      status: 400,
    },
    {
      name: 'description of the wrong type',
      method: 'PUT',
      path: (id) => `/rooms/${id}`,
      options: { json: { description: ['x'] } },
      status: 400,
    },
    {
      name: 'owner as a string',
      method: 'POST',
      path: (id) => `/rooms/${id}/members`,
      options: { json: { userId: crypto.randomUUID(), owner: 'yes', historyCleared: false } },
      status: 400,
    },
    {
      name: 'member userId not a UUID',
      method: 'POST',
      path: (id) => `/rooms/${id}/members`,
      options: { json: validMember('bob') },
      status: 400,
    },
    {
      name: 'forward body an object',
      method: 'POST',
      path: (id) => `/rooms/${id}/forward`,
      options: { json: { originalMessage: 'x' } },
      status: 400,
    },
    {
      name: 'forward item without originalMessage',
      method: 'POST',
      path: (id) => `/rooms/${id}/forward`,
      options: { json: [{ description: 'x' }] },
      status: 400,
    },
    {
      name: 'forward originalMessage a number',
      method: 'POST',
      path: (id) => `/rooms/${id}/forward`,
      options: { json: [{ originalMessage: 5 }] },
      status: 400,
    },
    {
      name: 'forward date not a date',
      method: 'POST',
      path: (id) => `/rooms/${id}/forward`,
      options: { json: [{ originalMessage: 'x', originalMessageSentAt: 'yesterday' }] },
      status: 400,
    },
    {
      name: 'empty forward list',
      method: 'POST',
      path: (id) => `/rooms/${id}/forward`,
      options: { json: [] },
      status: 400,
    },
    {
      name: 'itemsNumber not a number',
      method: 'GET',
      path: (id) => `/rooms/${id}/attachments?itemsNumber=ten`,
      options: {},
      status: 400,
    },
    { name: 'room id not a UUID', method: 'GET', path: () => '/rooms/not-a-uuid', options: {}, status: 404 },
    {
      name: 'room id not a UUID on PUT',
      method: 'PUT',
      path: () => '/rooms/1',
      options: { json: { name: 'x' } },
      status: 404,
    },
    {
      name: 'member id not a UUID',
      method: 'DELETE',
      path: (id) => `/rooms/${id}/members/bob`,
      options: {},
      status: 404,
    },
    {
      name: 'owner target not a UUID',
      method: 'PUT',
      path: (id) => `/rooms/${id}/members/bob/owner`,
      options: {},
      status: 404,
    },
    {
      name: 'attachment id not a UUID',
      method: 'GET',
      path: () => '/attachments/..%2F..%2Fetc%2Fpasswd/download',
      options: {},
      status: 404,
    },
    {
      name: 'a huge JSON body',
      method: 'POST',
      path: () => '/rooms',
      options: { json: { type: 'group', name: 'n', membersIds: [b, c], padding: 'x'.repeat(200_000) } },
      status: 413,
    },
    {
      name: 'a huge forward body',
      method: 'POST',
      path: (id) => `/rooms/${id}/forward`,
      options: { json: [{ originalMessage: 'x'.repeat(3_000_000) }] },
      status: 413,
    },
    {
      name: 'a picture that is not an image',
      method: 'PUT',
      path: (id) => `/rooms/${id}/picture`,
      options: { body: randomBytes(2048), headers: { ...octets, fileName: 'p.jpg', mimeType: 'image/jpeg' } },
      status: 400,
    },
    {
      name: 'an SVG picture',
      method: 'PUT',
      path: (id) => `/rooms/${id}/picture`,
      options: {
        body: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        headers: { ...octets, fileName: 'p.svg', mimeType: 'image/svg+xml' },
      },
      status: 400,
    },
    {
      name: 'an attachment without fileName',
      method: 'POST',
      path: (id) => `/rooms/${id}/attachments`,
      options: { body: 'x', headers: { ...octets, mimeType: 'text/plain' } },
      status: 400,
    },
    {
      name: 'an attachment with a malformed mimeType',
      method: 'POST',
      path: (id) => `/rooms/${id}/attachments`,
      options: { body: 'x', headers: { ...octets, fileName: 'a', mimeType: 'text plain' } },
      status: 400,
    },
    {
      name: 'an attachment name too long',
      method: 'POST',
      path: (id) => `/rooms/${id}/attachments`,
      options: { body: 'x', headers: { ...octets, fileName: 'a'.repeat(300), mimeType: 'text/plain' } },
      status: 400,
    },
  ];

  it.each(cases)('$name answers $status with a message', async (badCase) => {
    const response = await server.as(a)(badCase.method, badCase.path(roomId), badCase.options);
    expect(response.status).toBe(badCase.status);
    expect(response.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  });

  it('answers unknown chat routes with the chat error body', async () => {
    for (const [method, path] of [
      ['GET', `/rooms/${roomId}/unknown`],
      ['GET', '/attachments'],
    ]) {
      const response = await server.as(a)(method as string, path as string);
      expect(response).toMatchObject({ status: 404, body: { code: 'not_found' } });
    }
    // A documented path with a method it does not have: 405 naming the allowed ones.
    const patch = await server.as(a)('PATCH', `/rooms/${roomId}`);
    expect(patch.status).toBe(405);
    expect(patch.body).toMatchObject({ code: expect.any(String) });
    expect(patch.headers.get('allow')).toEqual(expect.stringContaining('GET'));
  });

  it('explains what was expected and what came', async () => {
    const response = await server.as(a)('POST', '/rooms', {
      json: { type: 'group', name: 42, membersIds: [b, c] },
    });
    expect(response.body).toEqual({
      code: 'invalid_input',
      message: 'invalid room: `name`: expected string but received number 42',
    });
  });

  it('answers a ZM_AUTH_TOKEN cookie that is not percent-encoded text with 401', async () => {
    for (const cookie of ['ZM_AUTH_TOKEN=%', 'ZM_AUTH_TOKEN=%E0%A4%A']) {
      const response = await server.as(a)('GET', '/rooms', { anonymous: true, headers: { cookie } });
      expect(response).toMatchObject({ status: 401, body: { code: 'unauthenticated' } });
    }
  });

  it('keeps serving after all of that', async () => {
    const response = await server.as(a)('GET', `/rooms/${roomId}`);
    expect(response.status).toBe(200);
    expect(response.body.members).toHaveLength(3);
    expect((await server.as(a)('GET', `/rooms/${roomId}/attachments`)).body).toEqual({ attachments: [] });
  });
});
