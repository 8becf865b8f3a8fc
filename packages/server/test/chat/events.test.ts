import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { framesNotDescribed, servedAsyncApi } from '../support/asyncapi-frames.js';
import { healthDependency } from '../support/test-server.js';
import {
  type ChatTestServer,
  type EventsClient,
  onePixelPng,
  receivedFrames,
  startChatServer,
  users,
} from './chat-test-support.js';

const isUuid = (value: unknown) =>
  typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);

const upgradeHeaders =
  'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

/** Sends a raw upgrade request and resolves with the status line answered (empty when none came). */
function rawUpgrade(baseUrl: string, target: string, extraHeaders = ''): Promise<string> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\n${upgradeHeaders}${extraHeaders}\r\n`);
    });
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
    setTimeout(() => socket.destroy(), 2000);
  });
}

/** Sends a ping and waits for its pong: every event sent to this socket before it has arrived. */
async function settle(client: EventsClient): Promise<void> {
  const pongs = client.messages.filter((message) => message.type === 'pong').length;
  client.socket.send(JSON.stringify({ type: 'ping' }));
  await client.next(() => client.messages.filter((message) => message.type === 'pong').length > pongs);
}

describe('WebSocket /events', () => {
  let server: ChatTestServer;
  const open: EventsClient[] = [];
  const connect = async (userId: string) => {
    const client = await server.events(userId);
    open.push(client);
    return client;
  };
  beforeAll(async () => {
    server = await startChatServer('sqlite');
  });
  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await server?.stop();
  });

  it('reports the in-process bus in /health/ as ready and not required', async () => {
    expect(await healthDependency(server.url, 'chat-events')).toEqual({
      name: 'chat-events',
      required: false,
      live: true,
      ready: true,
      details: { bus: 'in-process', sockets: expect.any(Number) },
    });
  });

  it('refuses an upgrade without a valid token with 401', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }]) {
      const status = await new Promise<number | undefined>((resolve) => {
        const socket = new WebSocket(`${server.url.replace('http', 'ws')}/events`, { headers });
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode));
        socket.on('open', () => resolve(undefined));
        socket.on('error', () => {});
      });
      expect(status).toBe(401);
    }
  });

  it('greets with websocketConnected and a queueId, answers ping with pong, accepts the cookie', async () => {
    const { a } = users('a');
    const client = await connect(a);
    expect(client.messages[0]).toEqual({ type: 'websocketConnected', queueId: expect.any(String) });
    expect(isUuid(client.messages[0]?.queueId)).toBe(true);
    client.socket.send(JSON.stringify({ type: 'ping' }));
    expect(await client.next((message) => message.type === 'pong')).toEqual({ type: 'pong' });
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/events`, {
      headers: { cookie: `ZM_AUTH_TOKEN=${await server.token(a)}` },
    });
    const greeting = await new Promise<Record<string, unknown>>((resolve) =>
      socket.once('message', (data) => resolve(JSON.parse(data.toString()))),
    );
    expect(greeting.type).toBe('websocketConnected');
    expect(greeting.queueId).not.toBe(client.messages[0]?.queueId);
    socket.close();
  });

  it('delivers each room event of reference §12 to the right users and nothing to outsiders', async () => {
    const { a, b, c, d, outsider } = users('a', 'b', 'c', 'd', 'outsider');
    const clients = await Promise.all([a, b, c, d, outsider].map(connect));
    const [sa, sb, sc, sd, so] = clients as [
      EventsClient,
      EventsClient,
      EventsClient,
      EventsClient,
      EventsClient,
    ];
    const secondB = await connect(b);
    const room = (
      await server.as(a)('POST', '/rooms', { json: { type: 'group', name: 'Team', membersIds: [b, c] } })
    ).body;
    const of = (type: string) => (message: Record<string, unknown>) =>
      message.type === type && message.roomId === room.id;
    for (const client of [sa, sb, sc, secondB]) {
      expect(await client.next(of('ROOM_CREATED'))).toEqual({
        type: 'ROOM_CREATED',
        roomId: room.id,
        sentDate: expect.any(String),
      });
    }
    await server.as(a)('PUT', `/rooms/${room.id}`, { json: { name: 'Renamed', description: 'New' } });
    expect(await sc.next(of('ROOM_UPDATED'))).toMatchObject({ name: 'Renamed', description: 'New' });

    await server.as(b)('PUT', `/rooms/${room.id}/mute`);
    await server.as(b)('DELETE', `/rooms/${room.id}/mute`);
    const cleared = (await server.as(b)('PUT', `/rooms/${room.id}/clear`)).body;
    expect(await sb.next(of('ROOM_MUTED'))).toBeTruthy();
    expect(await secondB.next(of('ROOM_UNMUTED'))).toBeTruthy();
    expect(await sb.next(of('ROOM_HISTORY_CLEARED'))).toMatchObject({ clearedAt: cleared.clearedAt });

    await server.as(a)('POST', `/rooms/${room.id}/members`, {
      json: { userId: d, owner: false, historyCleared: false },
    });
    for (const client of [sa, sd]) {
      expect(await client.next(of('ROOM_MEMBER_ADDED'))).toMatchObject({ userId: d, isOwner: false });
    }
    await server.as(a)('PUT', `/rooms/${room.id}/members/${c}/owner`);
    await server.as(a)('DELETE', `/rooms/${room.id}/members/${c}/owner`);
    expect(await sd.next(of('ROOM_OWNER_PROMOTED'))).toMatchObject({ userId: c });
    expect(await sd.next(of('ROOM_OWNER_DEMOTED'))).toMatchObject({ userId: c });

    const pictureHeaders = {
      fileName: 'p.png',
      mimeType: 'image/png',
      'content-type': 'application/octet-stream',
    };
    await server.as(a)('PUT', `/rooms/${room.id}/picture`, { body: onePixelPng, headers: pictureHeaders });
    expect(await sc.next(of('ROOM_PICTURE_CHANGED'))).toMatchObject({ updatedAt: expect.any(String) });
    await server.as(a)('DELETE', `/rooms/${room.id}/picture`);
    expect(await sc.next(of('ROOM_PICTURE_DELETED'))).toBeTruthy();

    await server.as(a)('DELETE', `/rooms/${room.id}/members/${d}`);
    for (const client of [sa, sd])
      expect(await client.next(of('ROOM_MEMBER_REMOVED'))).toMatchObject({ userId: d });
    await server.as(a)('DELETE', `/rooms/${room.id}`);
    for (const client of [sa, sb, sc]) expect(await client.next(of('ROOM_DELETED'))).toBeTruthy();

    await Promise.all([sa, sc, sd, so].map(settle));
    const typesOf = (client: EventsClient) => client.messages.map((message) => message.type);
    expect(typesOf(so)).toEqual(['websocketConnected', 'pong']);
    for (const client of [sa, sc]) {
      expect(typesOf(client)).not.toContain('ROOM_MUTED');
      expect(typesOf(client)).not.toContain('ROOM_HISTORY_CLEARED');
    }
    expect(typesOf(sd)).not.toContain('ROOM_DELETED');
    expect(typesOf(sd)).not.toContain('ROOM_CREATED');
  });

  it('delivers attachment notices and forwarded messages to the members as documented events', async () => {
    const { a, b, c } = users('a', 'b', 'c');
    const [sa, sc] = [await connect(a), await connect(c)];
    const room = (
      await server.as(a)('POST', '/rooms', { json: { type: 'group', name: 'Team', membersIds: [b, c] } })
    ).body;
    expect(
      await sc.next(
        (message) => message.type === 'ROOM_SYSTEM_MESSAGE' && message.operation === 'memberAdded',
      ),
    ).toMatchObject({
      roomId: room.id,
      senderId: a,
    });
    const uploaded = await server.as(b)('POST', `/rooms/${room.id}/attachments`, {
      body: 'hello',
      headers: {
        fileName: 'a.txt',
        mimeType: 'text/plain',
        description: 'look',
        'content-type': 'application/octet-stream',
      },
    });
    expect(await sa.next((message) => message.type === 'ROOM_ATTACHMENT_ADDED')).toMatchObject({
      roomId: room.id,
      senderId: b,
      attachment: { id: uploaded.body.id, name: 'a.txt', mimeType: 'text/plain', size: 5 },
      description: 'look',
    });
    await server.as(c)('POST', `/rooms/${room.id}/forward`, {
      json: [{ originalMessage: 'hi there', description: 'fwd' }],
    });
    expect(await sa.next((message) => message.type === 'ROOM_MESSAGE_FORWARDED')).toMatchObject({
      roomId: room.id,
      senderId: c,
      originalMessage: 'hi there',
      description: 'fwd',
      count: 1,
    });
  });

  it('closes a socket whose message is larger than 4 KiB, and keeps serving others', async () => {
    const { a } = users('a');
    const greedy = await connect(a);
    const closed = new Promise<number>((resolve) => greedy.socket.once('close', (code) => resolve(code)));
    greedy.socket.send('x'.repeat(5000));
    expect(await closed).toBe(1009);
    const healthy = await connect(a);
    await settle(healthy);
  });

  it('survives peers that reset the connection while their upgrade is checked', async () => {
    const { port } = new URL(server.url);
    await Promise.all(
      Array.from(
        { length: 100 },
        () =>
          new Promise<void>((resolve) => {
            const socket = net.connect(Number(port), '127.0.0.1', () => {
              socket.write(
                `GET /events HTTP/1.1\r\nHost: x\r\n${upgradeHeaders}Authorization: Bearer a.b.c\r\n\r\n`,
              );
              socket.resetAndDestroy();
            });
            socket.on('error', () => {});
            socket.on('close', () => resolve());
          }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await settle(await connect(users('a').a));
  });

  it('answers upgrades to other paths with 404, a target that is not a URL too, and a malformed cookie with 401', async () => {
    expect(await rawUpgrade(server.url, '/nowhere')).toBe('HTTP/1.1 404 Not Found');
    expect(await rawUpgrade(server.url, 'http://[')).toBe('HTTP/1.1 404 Not Found');
    expect(await rawUpgrade(server.url, '/events', 'Cookie: ZM_AUTH_TOKEN=%E0%A4%A\r\n')).toBe(
      'HTTP/1.1 401 Unauthorized',
    );
    await settle(await connect(users('a').a));
  });

  it('stops delivering to a closed socket', async () => {
    const { a, b, c } = users('a', 'b', 'c');
    const first = await connect(a);
    await first.close();
    const second = await connect(a);
    await server.as(a)('POST', '/rooms', { json: { type: 'group', name: 'Team', membersIds: [b, c] } });
    await second.next((message) => message.type === 'ROOM_CREATED');
    expect(first.messages.map((message) => message.type)).toEqual(['websocketConnected']);
  });

  it('sent only frames that /asyncapi.json describes, each matching its payload schema', async () => {
    const types = new Set(receivedFrames.map((frame) => frame.type));
    expect([...types]).toEqual(
      expect.arrayContaining(['websocketConnected', 'pong', 'ROOM_CREATED', 'ROOM_ATTACHMENT_ADDED']),
    );
    expect(framesNotDescribed(await servedAsyncApi(server.url), receivedFrames)).toEqual([]);
  });
});
