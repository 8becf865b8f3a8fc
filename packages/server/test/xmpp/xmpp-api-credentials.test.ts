import { randomUUID } from 'node:crypto';
import type { PrivateEjabberd } from '@collab-suite/chat-domain/testing';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import type { ChatFeature } from '../../src/chat/chat-feature.js';
import { chatClientFor } from '../chat/chat-test-support.js';
import { fetchHealth, type TestServer, testJwtSecret } from '../support/test-server.js';
import { startChatServer, startDocumentedEjabberd, xmppEnvironment } from './xmpp-test-server.js';

const mirrorAccount = 'chat-mirror@collab.test';

describe('CHAT_XMPP_API_USER and CHAT_XMPP_API_PASSWORD against an ejabberd API open to one account', () => {
  let ejabberd: PrivateEjabberd;
  let server: TestServer;
  let feature: ChatFeature;
  let authorization: string;

  beforeAll(async () => {
    ejabberd = await startDocumentedEjabberd({
      jwtSecret: testJwtSecret,
      apiAccess: { user: mirrorAccount },
    });
    // Under JWT authentication the account's password is a token naming it.
    const password = await new SignJWT({ jid: mirrorAccount })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(testJwtSecret));
    authorization = `Basic ${Buffer.from(`${mirrorAccount}:${password}`).toString('base64')}`;
    ({ server, feature } = await startChatServer({
      ...xmppEnvironment(ejabberd),
      CHAT_XMPP_API_USER: mirrorAccount,
      CHAT_XMPP_API_PASSWORD: password,
    }));
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await ejabberd?.stop();
  });

  it('mirrors rooms with basic authentication, which anonymous callers cannot use', async () => {
    const anonymous = await fetch(`${ejabberd.apiUrl}/muc_online_rooms`, {
      method: 'POST',
      body: JSON.stringify({ service: ejabberd.mucDomain }),
    });
    expect(anonymous.status).toBeGreaterThanOrEqual(400);
    const [alice, bob, carol] = [randomUUID(), randomUUID(), randomUUID()];
    const as = chatClientFor(server.url, (userId) => signLocalToken(testJwtSecret, { userId }));
    const created = await as(alice)('POST', '/rooms', {
      json: { type: 'group', name: 'Locked', membersIds: [bob, carol] },
    });
    expect(created.status).toBe(201);
    await feature.xmppMirror?.idle();
    const rooms = await fetch(`${ejabberd.apiUrl}/muc_online_rooms`, {
      method: 'POST',
      headers: { authorization },
      body: JSON.stringify({ service: ejabberd.mucDomain }),
    });
    expect(await rooms.json()).toEqual([`${created.body.id}@${ejabberd.mucDomain}`]);
    expect((await fetch(`${server.url}/health/ready/`)).status).toBe(200);
    const health = (await (await fetchHealth(server.url)).json()) as {
      dependencies: { name: string; ready: boolean }[];
    };
    expect(health.dependencies.find((dependency) => dependency.name === 'chat-xmpp')?.ready).toBe(true);
  });
});
