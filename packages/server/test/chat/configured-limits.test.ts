import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meetingJsonLimitBytes } from '../../src/meetings/meeting-routes.js';
import { loopbackMeetingEnv, meetingUser } from '../meetings/meeting-test-support.js';
import { type ChatTestServer, onePixelPng, startChatServer, users } from './chat-test-support.js';

/**
 * The chat and meeting limits of the configuration reach the services: each is set low through its
 * environment variable and exceeded over HTTP. (The defaults are tested in the checklists.)
 */
describe('chat and meeting limits set through the environment', () => {
  let server: ChatTestServer;
  const pictureHeaders = {
    fileName: 'p.png',
    mimeType: 'image/png',
    'content-type': 'application/octet-stream',
  };

  beforeAll(async () => {
    server = await startChatServer('sqlite', {
      env: {
        ...loopbackMeetingEnv,
        CHAT_MAX_PICTURE_BYTES: String(onePixelPng.length),
        CHAT_MAX_ROOM_MEMBERS: '3',
        MEETING_MAX_PARTICIPANTS: '1',
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('CHAT_MAX_PICTURE_BYTES: a picture one byte past it is picture_too_large (400)', async () => {
    const { a, b, c } = users('a', 'b', 'c');
    const room = await server.as(a)('POST', '/rooms', {
      json: { type: 'group', name: 'Pictures', membersIds: [b, c] },
    });
    const put = (body: Uint8Array) =>
      server.as(a)('PUT', `/rooms/${room.body.id}/picture`, { body, headers: pictureHeaders });
    expect((await put(onePixelPng)).status).toBe(204);
    expect(await put(Buffer.concat([onePixelPng, Buffer.alloc(1)]))).toMatchObject({
      status: 400,
      body: { code: 'picture_too_large' },
    });
  });

  it('CHAT_MAX_ROOM_MEMBERS: creating or growing a room past it is room_full (400)', async () => {
    const { a, b, c, d } = users('a', 'b', 'c', 'd');
    const tooMany = await server.as(a)('POST', '/rooms', {
      json: { type: 'group', name: 'Crowd', membersIds: [b, c, d] },
    });
    expect(tooMany).toMatchObject({ status: 400, body: { code: 'room_full' } });
    const room = await server.as(a)('POST', '/rooms', {
      json: { type: 'group', name: 'Three', membersIds: [b, c] },
    });
    expect(room.status).toBe(201);
    const added = await server.as(a)('POST', `/rooms/${room.body.id}/members`, {
      json: { userId: d, owner: false, historyCleared: false },
    });
    expect(added).toMatchObject({ status: 400, body: { code: 'room_full' } });
    expect((await server.as(a)('GET', `/rooms/${room.body.id}/members`)).body).toHaveLength(3);
  });

  it('MEETING_MAX_PARTICIPANTS: a join past it is meeting_full (409)', async () => {
    const ids = users('alice', 'bob', 'carol');
    const [alice, bob] = await Promise.all([meetingUser(server, ids.alice), meetingUser(server, ids.bob)]);
    try {
      const room = await alice.call('POST', '/rooms', {
        json: { type: 'group', name: 'Call', membersIds: [bob.userId, ids.carol] },
      });
      const meeting = await alice.call('POST', '/meetings', { json: { roomId: room.body.id } });
      await alice.call('POST', `/meetings/${meeting.body.id}/start`);
      const join = (user: typeof alice) =>
        user.call('POST', `/meetings/${meeting.body.id}/join`, {
          json: { audioStreamEnabled: false, videoStreamEnabled: false },
          headers: { 'queue-id': user.queueId },
        });
      expect((await join(alice)).status).toBe(200);
      expect(await join(bob)).toMatchObject({ status: 409, body: { code: 'meeting_full' } });
    } finally {
      await Promise.all([alice.events.close(), bob.events.close()]);
    }
  });

  it('answers a meeting body past its JSON limit (room for any sdp within its bound) with 413', async () => {
    const { a, b, c } = users('a', 'b', 'c');
    const room = await server.as(a)('POST', '/rooms', {
      json: { type: 'group', name: 'Big', membersIds: [b, c] },
    });
    const response = await server.as(a)('POST', '/meetings', {
      json: { roomId: room.body.id, name: 'x'.repeat(meetingJsonLimitBytes + 1) },
    });
    expect(response.status).toBe(413);
    expect((await server.as(a)('GET', `/rooms/${room.body.id}/meeting`)).status).toBe(404);
  });
});
