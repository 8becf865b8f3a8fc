import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatTestServer, startChatServer, users } from './chat-test-support.js';

describe('bounds of rooms per user', () => {
  let server: ChatTestServer;
  beforeAll(async () => {
    server = await startChatServer('sqlite', {
      env: { CHAT_MAX_ROOMS_PER_USER: '6', CHAT_ROOM_CREATIONS_PER_MINUTE: '5' },
    });
  });
  afterAll(() => server.stop());

  const create = (userId: string, others: string[]) =>
    server.as(userId)('POST', '/rooms', { json: { type: 'group', name: 'Bound', membersIds: others } });

  it('refuses the sixth creation within a minute with 429 and Retry-After', async () => {
    const { a, b, c } = users('a', 'b', 'c');
    for (let index = 0; index < 5; index += 1) expect((await create(a, [b, c])).status).toBe(201);
    const refused = await create(a, [b, c]);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.message ?? JSON.stringify(refused.body)).toContain('5 new rooms per minute');
    // Another user is counted apart.
    expect((await create(b, [a, c])).status).toBe(201);
  });

  it('refuses a room or a membership past the rooms a user may be in with 409 too_many_rooms', async () => {
    const { a, b, c, d, e } = users('a', 'b', 'c', 'd', 'e');
    for (let index = 0; index < 3; index += 1) expect((await create(a, [b, c])).status).toBe(201);
    for (let index = 0; index < 3; index += 1) expect((await create(d, [b, e])).status).toBe(201);
    const full = await create(e, [b, c]);
    expect(full.status).toBe(409);
    expect(JSON.stringify(full.body)).toContain('too_many_rooms');
  });

  it('pages GET /rooms with limit and cursor, naming the next page in a Link header', async () => {
    const { a, b, c } = users('a', 'b', 'c');
    const made: string[] = [];
    for (let index = 0; index < 5; index += 1) made.push((await create(a, [b, c])).body.id);
    const seen: string[] = [];
    let next: string | undefined = '/rooms?extraFields=members&limit=2';
    let pages = 0;
    while (next !== undefined) {
      const page = await server.as(a)('GET', next);
      expect(page.status).toBe(200);
      expect(page.body.every((room: { members?: unknown[] }) => room.members?.length === 3)).toBe(true);
      seen.push(...page.body.map((room: { id: string }) => room.id));
      next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
      pages += 1;
    }
    expect([pages, seen]).toEqual([3, made]);
    const unpaged = await server.as(a)('GET', '/rooms');
    expect([unpaged.headers.get('link'), unpaged.body.map((room: { id: string }) => room.id)]).toEqual([
      null,
      made,
    ]);
    for (const query of ['limit=0', 'limit=1001', 'limit=two', 'limit=1&limit=2', 'cursor=zzz']) {
      expect((await server.as(a)('GET', `/rooms?${query}`)).status).toBe(400);
    }
  });
});
