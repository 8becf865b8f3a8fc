import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatTestServer, chatDatabases, startChatServer, users } from '../chat/chat-test-support.js';

// CHAT_MAX_ROOMS_PER_USER bounds the rooms others may put a user in; the user's own creations count
// against twice it. So other users can fill their share, never the user's own.

describe.each(chatDatabases)('nobody can keep another user from creating rooms, on %s', (database) => {
  let server: ChatTestServer;
  beforeAll(async () => {
    server = await startChatServer(database, {
      env: { CHAT_MAX_ROOMS_PER_USER: '3', CHAT_ROOM_CREATIONS_PER_MINUTE: '100' },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const create = (userId: string, others: string[]) =>
    server.as(userId)('POST', '/rooms', { json: { type: 'group', name: 'Cap', membersIds: others } });

  it('refuses the adder with 409 too_many_rooms once others filled their share, and lets the user create', async () => {
    const { victim, mallory } = users('victim', 'mallory');
    const fresh = () => users('x').x;
    for (let index = 0; index < 3; index += 1)
      expect((await create(mallory, [victim, fresh()])).status).toBe(201);

    const refused = await create(mallory, [victim, fresh()]);
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain('too_many_rooms');
    const room = await create(mallory, [fresh(), fresh()]);
    const added = await server.as(mallory)('POST', `/rooms/${room.body.id}/members`, {
      json: { userId: victim, owner: false, historyCleared: false },
    });
    expect(added.status).toBe(409);

    for (let index = 0; index < 3; index += 1)
      expect((await create(victim, [fresh(), fresh()])).status).toBe(201);
    const own = await create(victim, [fresh(), fresh()]);
    expect(own.status).toBe(409);
    expect(JSON.stringify(own.body)).toContain('twice CHAT_MAX_ROOMS_PER_USER');
    expect((await server.as(victim)('GET', '/rooms')).body).toHaveLength(6);
  });
});
