import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { testJwtSecret } from '../support/test-server.js';
import {
  type ChatTestServer,
  type EventsClient,
  onePixelPng,
  startChatServer,
  unicodeEscape,
  users,
} from './chat-test-support.js';

/**
 * Calls shaped as the original web client's fetch helper makes them: the ZM_AUTH_TOKEN cookie, a
 * JSON content type and the `queue-id` of its /events session on every call, bodies only when
 * there is something to send. It reads a body only when the type is exactly application/json.
 */
function originalClient(baseUrl: string, cookie: string, queueId: () => string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        cookie: `ZM_AUTH_TOKEN=${cookie}`,
        'Content-Type': 'application/json',
        'queue-id': queueId(),
        ...headers,
      },
      ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
    });
    const type = response.headers.get('content-type');
    const text = await response.text();
    return { status: response.status, type, body: type === 'application/json' ? JSON.parse(text) : text };
  };
}

describe('the original web client, replayed', () => {
  let server: ChatTestServer;
  let events: EventsClient;
  const { alice, bob, carol } = users('alice', 'bob', 'carol');
  let call: ReturnType<typeof originalClient>;

  beforeAll(async () => {
    server = await startChatServer('sqlite');
    events = await server.events(alice);
    const cookie = await signLocalToken(testJwtSecret, { userId: alice });
    call = originalClient(server.url, cookie, () => String(events.messages[0]?.queueId));
  });
  afterAll(async () => {
    await events.close();
    await server.stop();
  });

  it('gets every JSON answer as exactly application/json and reads rooms, meetings and limits', async () => {
    const capabilities = await call('GET', '/users/capabilities');
    expect(capabilities).toMatchObject({ status: 200, type: 'application/json' });
    expect(capabilities.body).toMatchObject({ maxGroupMembers: 128, maxRoomImageSizeInKb: 512 });

    const created = await call('POST', '/rooms', {
      name: 'Team',
      description: '',
      type: 'group',
      membersIds: [bob, carol],
    });
    expect(created).toMatchObject({ status: 201, type: 'application/json', body: { name: 'Team' } });
    const roomId: string = created.body.id;

    const listed = await call('GET', '/rooms?extraFields=members&extraFields=settings');
    expect(listed.type).toBe('application/json');
    expect(listed.body.find((room: { id: string }) => room.id === roomId)).toMatchObject({
      members: expect.any(Array),
      userSettings: expect.any(Object),
    });

    // Bodyless calls still carry the JSON content type.
    expect((await call('PUT', `/rooms/${roomId}/mute`)).status).toBe(204);
    const picture = await call('PUT', `/rooms/${roomId}/picture`, onePixelPng, {
      'Content-Type': 'application/octet-stream',
      fileName: unicodeEscape('équipe.png'),
      mimeType: 'image/png',
    });
    expect(picture.status).toBe(204);

    const meeting = await call('POST', '/meetings', { roomId, name: 'Team', meetingType: 'permanent' });
    expect(meeting).toMatchObject({ status: 200, type: 'application/json' });
    const started = await call('POST', `/meetings/${meeting.body.id}/start`);
    expect(started).toMatchObject({ status: 200, type: 'application/json', body: { active: true } });
    const joined = await call('POST', `/meetings/${meeting.body.id}/join`, {
      audioStreamEnabled: false,
      videoStreamEnabled: false,
    });
    expect(joined).toMatchObject({ status: 200, type: 'application/json', body: { status: 'ACCEPTED' } });

    // All selected messages in one forward, more than the old limit of 20.
    const selected = Array.from({ length: 60 }, (_, index) => ({
      originalMessage: `<message id="m${index}"><body>hello ${index}</body></message>`,
      originalMessageSentAt: new Date(Date.UTC(2024, 0, 1, 0, index)).toISOString(),
    }));
    expect((await call('POST', `/rooms/${roomId}/forward`, selected)).status).toBe(204);
  });

  it('gets errors as exactly application/json too, with what went wrong', async () => {
    const missing = await call('GET', '/rooms/7d0c1a4e-52f4-4d6c-9b1e-2f8a0c3e5b71');
    expect(missing).toMatchObject({
      status: 404,
      type: 'application/json',
      body: { code: 'room_not_found' },
    });
    const unknownField = await call('GET', '/rooms?extraFields=foo');
    expect(unknownField).toMatchObject({ status: 400, type: 'application/json' });
    expect(unknownField.body.message).toContain('"foo"');
    const badQueue = await fetch(`${server.url}/rooms`, {
      headers: {
        cookie: `ZM_AUTH_TOKEN=${await signLocalToken(testJwtSecret, { userId: alice })}`,
        'queue-id': 'not-a-queue',
      },
    });
    expect([badQueue.status, badQueue.headers.get('content-type')]).toEqual([401, 'application/json']);
    expect(((await badQueue.json()) as { message: string }).message).toContain('invalid queue id');
  });
});
