import { randomUUID } from 'node:crypto';
import { eventually, type PrivateEjabberd } from '@collab-suite/chat-domain/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import type { ChatFeature } from '../../src/chat/chat-feature.js';
import { type ChatClient, chatClientFor } from '../chat/chat-test-support.js';
import { fetchHealth, type TestServer, testJwtSecret } from '../support/test-server.js';
import { connectXmppClient, type XmlElement, type XmppTestClient } from './xmpp-test-client.js';
import { startChatServer, startDocumentedEjabberd, xmppEnvironment } from './xmpp-test-server.js';

const operationNamespace = 'urn:xmpp:muclight:0#configuration';

describe('chat messages through a private ejabberd', () => {
  let ejabberd: PrivateEjabberd;
  let server: TestServer;
  let feature: ChatFeature;
  let as: (userId: string) => ChatClient;
  const clients: XmppTestClient[] = [];
  const [alice, bob, carol] = [randomUUID(), randomUUID(), randomUUID()];

  const command = async (name: string, body: Record<string, unknown>) =>
    (await fetch(`${ejabberd.apiUrl}/${name}`, { method: 'POST', body: JSON.stringify(body) })).json();
  const affiliations = async (roomId: string) =>
    Object.fromEntries(
      (
        (await command('get_room_affiliations', { name: roomId, service: ejabberd.mucDomain })) as {
          username: string;
          affiliation: string;
        }[]
      ).map((entry) => [entry.username, entry.affiliation]),
    );
  const token = (userId: string) => signLocalToken(testJwtSecret, { userId, xmppDomain: ejabberd.domain });
  const connect = async (userId: string) => {
    const client = await connectXmppClient({
      service: ejabberd.c2sUrl,
      domain: ejabberd.domain,
      userId,
      token: await token(userId),
    });
    clients.push(client);
    return client;
  };
  const roomJid = (roomId: string) => `${roomId}@${ejabberd.mucDomain}`;
  const createGroup = async (owner: string, members: string[], name = 'Team') => {
    const response = await as(owner)('POST', '/rooms', {
      json: { type: 'group', name, membersIds: members },
    });
    expect(response.status).toBe(201);
    await feature.xmppMirror?.idle();
    return response.body.id as string;
  };
  const bodyOf = (message: XmlElement) => message.getChildText('body');

  beforeAll(async () => {
    ejabberd = await startDocumentedEjabberd({ jwtSecret: testJwtSecret });
    ({ server, feature } = await startChatServer(xmppEnvironment(ejabberd)));
    as = chatClientFor(server.url, token);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.stop()));
    await server?.stop();
    await ejabberd?.stop();
  });

  it('lets two members of a room created through the API chat, and read the history with MAM', async () => {
    const roomId = await createGroup(alice, [bob, carol]);
    const [aliceXmpp, bobXmpp] = [await connect(alice), await connect(bob)];
    expect((await aliceXmpp.join(roomJid(roomId))).attrs.type).toBeUndefined();
    expect((await bobXmpp.join(roomJid(roomId))).attrs.type).toBeUndefined();
    await aliceXmpp.say(roomJid(roomId), 'm-1', 'hello bob');
    const received = await bobXmpp.next((stanza) => stanza.attrs.id === 'm-1');
    expect([received.attrs.from, bodyOf(received)]).toEqual([`${roomJid(roomId)}/${alice}`, 'hello bob']);
    await bobXmpp.say(roomJid(roomId), 'm-2', 'hi alice');
    await aliceXmpp.next((stanza) => stanza.attrs.id === 'm-2');
    const { messages } = await bobXmpp.history(roomJid(roomId));
    const operations = messages.map((message) =>
      message.getChild('x', operationNamespace)?.getChildText('operation'),
    );
    // The memberAdded notices for bob and carol, from alice, then the two messages.
    expect(operations.filter((operation) => operation === 'memberAdded')).toHaveLength(2);
    expect(messages.filter((message) => bodyOf(message)).map(bodyOf)).toEqual(['hello bob', 'hi alice']);
  });

  it('shuts a removed member out: no posting, no reading, no joining', async () => {
    const roomId = await createGroup(alice, [bob, carol]);
    const carolXmpp = await connect(carol);
    expect((await carolXmpp.history(roomJid(roomId))).error).toBeUndefined();
    expect((await as(alice)('DELETE', `/rooms/${roomId}/members/${carol}`)).status).toBe(204);
    await feature.xmppMirror?.idle();
    expect(await affiliations(roomId)).toEqual({ [alice]: 'member', [bob]: 'member' });
    const history = await carolXmpp.history(roomJid(roomId));
    expect(history.messages).toEqual([]);
    expect(history.error?.getChild('forbidden')).toBeDefined();
    const refused = await carolXmpp.join(roomJid(roomId));
    expect(refused.attrs.type).toBe('error');
    expect(refused.getChild('error')?.getChild('registration-required')).toBeDefined();
    await carolXmpp.say(roomJid(roomId), 'm-out', 'still here?');
    const bounced = await carolXmpp.next(
      (stanza) => stanza.attrs.id === 'm-out' && stanza.attrs.type === 'error',
    );
    expect(bounced.getChild('error')).toBeDefined();
  });

  it('announces a member who leaves from the first owner, as the original did', async () => {
    const roomId = await createGroup(alice, [bob, carol]);
    const aliceXmpp = await connect(alice);
    await aliceXmpp.join(roomJid(roomId));
    expect((await as(carol)('DELETE', `/rooms/${roomId}/members/${carol}`)).status).toBe(204);
    const notice = await aliceXmpp.next(
      (stanza) =>
        stanza.attrs.from?.startsWith(roomJid(roomId)) === true &&
        stanza.getChild('x', operationNamespace)?.getChildText('operation') === 'memberRemoved',
    );
    expect(notice.attrs.from).toBe(`${roomJid(roomId)}/${alice}`);
    expect(notice.getChild('x', operationNamespace)?.getChildText('userId')).toBe(carol);
    expect(await affiliations(roomId)).toEqual({ [alice]: 'member', [bob]: 'member' });
  });

  it('keeps an owner of the API a plain MUC member and destroys a deleted room', async () => {
    const roomId = await createGroup(alice, [bob, carol]);
    expect((await as(alice)('PUT', `/rooms/${roomId}/members/${bob}/owner`)).status).toBe(204);
    await feature.xmppMirror?.idle();
    expect((await affiliations(roomId))[bob]).toBe('member');
    expect((await as(alice)('DELETE', `/rooms/${roomId}/members/${bob}/owner`)).status).toBe(204);
    await feature.xmppMirror?.idle();
    expect((await affiliations(roomId))[bob]).toBe('member');
    expect((await as(alice)('DELETE', `/rooms/${roomId}`)).status).toBe(204);
    await feature.xmppMirror?.idle();
    await eventually(async () => {
      expect(await command('muc_online_rooms', { service: ejabberd.mucDomain })).not.toContain(
        roomJid(roomId),
      );
    });
  });

  it('announces an upload and a forward as the expected stanzas from the acting user', async () => {
    const source = await createGroup(alice, [bob, carol], 'Source');
    const target = await createGroup(bob, [alice, carol], 'Target');
    const aliceXmpp = await connect(alice);
    await aliceXmpp.join(roomJid(source));
    await aliceXmpp.join(roomJid(target));
    const upload = await as(bob)('POST', `/rooms/${source}/attachments`, {
      body: 'file bytes',
      headers: {
        fileName: 'notes.txt',
        mimeType: 'text/plain',
        'content-type': 'application/octet-stream',
        messageId: 'upload-1',
      },
    });
    expect(upload.status).toBe(201);
    const notice = await aliceXmpp.next((stanza) => stanza.attrs.id === 'upload-1');
    expect(notice.attrs.from).toBe(`${roomJid(source)}/${bob}`);
    const operation = notice.getChild('x', operationNamespace);
    expect(operation?.getChildText('operation')).toBe('attachmentAdded');
    expect(operation?.getChildText('attachment-id')).toBe(upload.body.id);
    expect([operation?.getChildText('filename'), operation?.getChildText('size')]).toEqual([
      'notes.txt',
      '10',
    ]);

    const forward = await as(bob)('POST', `/rooms/${target}/forward`, {
      json: [
        {
          originalMessage: notice.toString(),
          originalMessageSentAt: '2024-05-01T10:00:00.000Z',
          description: 'see this',
        },
      ],
    });
    expect(forward.status).toBe(204);
    const forwarded = await aliceXmpp.next(
      (stanza) =>
        stanza.attrs.from === `${roomJid(target)}/${bob}` && stanza.getChild('forwarded') !== undefined,
    );
    expect(bodyOf(forwarded)).toBe('see this');
    const wrapper = forwarded.getChild('forwarded', 'urn:xmpp:forward:0');
    expect(wrapper?.attrs.count).toBe('1');
    expect(wrapper?.getChild('delay', 'urn:xmpp:delay')?.attrs.stamp).toBe('2024-05-01T10:00:00.000Z');
    expect(wrapper?.getChild('message')?.getChild('stanza-id')).toBeUndefined();
    const copied = forwarded.getChild('x', operationNamespace)?.getChildText('attachment-id');
    expect(copied).toBeTruthy();
    expect(copied).not.toBe(upload.body.id);
    expect((await as(alice)('GET', `/attachments/${copied}`)).body.roomId).toBe(target);
  });

  it('keeps the API working while ejabberd is down and catches up once it is back', async () => {
    const kept = await createGroup(alice, [bob, carol], 'Kept');
    await ejabberd.halt();
    const created = await as(alice)('POST', '/rooms', {
      json: { type: 'group', name: 'Offline', membersIds: [bob, carol] },
    });
    expect(created.status).toBe(201);
    expect((await as(alice)('DELETE', `/rooms/${kept}/members/${carol}`)).status).toBe(204);
    expect((await as(alice)('PUT', `/rooms/${kept}`, { json: { name: 'Renamed offline' } })).status).toBe(
      200,
    );
    expect((await fetch(`${server.url}/health/ready/`)).status).toBe(503);
    const health = (await (await fetchHealth(server.url)).json()) as {
      ready: boolean;
      dependencies: { name: string; ready: boolean; details: { outbox: number } }[];
    };
    expect(health.ready).toBe(false);
    const xmpp = health.dependencies.find((dependency) => dependency.name === 'chat-xmpp');
    expect(xmpp?.ready).toBe(false);
    expect(xmpp?.details.outbox).toBeGreaterThan(0);
    await ejabberd.restart();
    await feature.xmppMirror?.idle();
    expect(await affiliations(created.body.id)).toEqual({
      [alice]: 'member',
      [bob]: 'member',
      [carol]: 'member',
    });
    expect(await affiliations(kept)).toEqual({ [alice]: 'member', [bob]: 'member' });
    expect(await command('get_room_options', { name: kept, service: ejabberd.mucDomain })).toMatchObject({
      title: 'Renamed offline',
    });
    const report = await feature.xmppMirror?.resync();
    expect(report?.changedRoomIds).toEqual([]);
    expect((await fetch(`${server.url}/health/ready/`)).status).toBe(200);
  }, 120_000);
});
