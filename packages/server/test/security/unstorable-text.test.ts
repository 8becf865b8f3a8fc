import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatTestServer,
  chatDatabases,
  startChatServer,
  unicodeEscape,
  users,
} from '../chat/chat-test-support.js';

// Text no engine stores as it is (a NUL: PostgreSQL refuses it; an unpaired surrogate: UTF-8 cannot
// encode it) is a 400 naming the field on SQLite and PostgreSQL alike, never a 500 or a silent U+FFFD.

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'x\uD800y';

describe.each(chatDatabases)('text that cannot be stored, on %s', (database) => {
  let server: ChatTestServer;
  const { a, b, c } = users('a', 'b', 'c');
  let roomId = '';
  beforeAll(async () => {
    server = await startChatServer(database);
    const created = await server.as(a)('POST', '/rooms', {
      json: { type: 'group', name: 'Team', membersIds: [b, c] },
    });
    expect(created.status).toBe(201);
    roomId = created.body.id;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each([
    ['a NUL in a room name', { name: NUL }],
    ['a NUL in a room description', { name: 'ok', description: NUL }],
    ['a lone surrogate in a room name', { name: LONE_SURROGATE }],
    ['a lone surrogate in a room description', { name: 'ok', description: LONE_SURROGATE }],
  ])('answers POST /rooms with %s 400', async (_case, fields) => {
    const response = await server.as(a)('POST', '/rooms', {
      json: { type: 'group', membersIds: [b, c], ...fields },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('cannot be stored');
  });

  it('answers PUT /rooms/{id} with a NUL or a lone surrogate 400 and keeps the room as it was', async () => {
    for (const name of [NUL, LONE_SURROGATE]) {
      expect((await server.as(a)('PUT', `/rooms/${roomId}`, { json: { name } })).status).toBe(400);
    }
    expect((await server.as(a)('GET', `/rooms/${roomId}`)).body).toMatchObject({ name: 'Team' });
  });

  it('answers an attachment whose file name or description header holds a NUL or a lone surrogate 400', async () => {
    const upload = (headers: Record<string, string>) =>
      server.as(a)('POST', `/rooms/${roomId}/attachments`, {
        body: 'notes',
        headers: {
          fileName: 'notes.txt',
          mimeType: 'text/plain',
          'content-type': 'application/octet-stream',
          ...headers,
        },
      });
    for (const text of [NUL, LONE_SURROGATE]) {
      expect((await upload({ fileName: unicodeEscape(`${text}.txt`) })).status).toBe(400);
      expect((await upload({ description: unicodeEscape(text) })).status).toBe(400);
    }
    expect((await upload({ fileName: unicodeEscape('ünïcødé 🚀.txt') })).status).toBe(201);
  });

  it('answers a forward whose text holds a NUL or a lone surrogate 400', async () => {
    for (const originalMessage of [NUL, LONE_SURROGATE]) {
      const response = await server.as(a)('POST', `/rooms/${roomId}/forward`, {
        json: [{ originalMessage }],
      });
      expect(response.status).toBe(400);
    }
  });

  it('stores astral characters and other unusual but valid text unchanged', async () => {
    const name = 'Équipe 🚀\ttab';
    const created = await server.as(a)('POST', '/rooms', {
      json: { type: 'group', name, membersIds: [b, c] },
    });
    expect(created.status).toBe(201);
    expect((await server.as(a)('GET', `/rooms/${created.body.id}`)).body).toMatchObject({ name });
  });
});
