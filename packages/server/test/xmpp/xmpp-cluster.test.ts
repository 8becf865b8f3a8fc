import { randomUUID } from 'node:crypto';
import { eventually, type PrivateEjabberd } from '@collab-suite/chat-domain/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { type ChatClient, chatClientFor } from '../chat/chat-test-support.js';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { testJwtSecret } from '../support/test-server.js';
import { connectXmppClient } from './xmpp-test-client.js';
import { startDocumentedEjabberd, xmppEnvironment } from './xmpp-test-server.js';

// Server processes (dist/main.js) sharing one PostgreSQL database and one private ejabberd: one
// drainer holds the outbox's lease, changes made through any process reach ejabberd, a change made
// through a process that does not drain wakes the one that does (LISTEN/NOTIFY, not its poll), and
// when the draining process is killed the other takes over once the lease has run out.

const databaseName = 'xmppscale_xmpp_cluster';
const operationNamespace = 'urn:xmpp:muclight:0#configuration';

/** A room as the API left it: its name and who is owner or member. */
interface ExpectedRoom {
  name: string;
  members: Record<string, 'owner' | 'member'>;
}

/** A fresh database: the outbox and its lease are global, so a run must not inherit another's. */
async function freshDatabaseUrl(): Promise<string> {
  const url = await testDatabaseUrl(databaseName);
  const admin = new pg.Client({ connectionString: url.replace(`/${databaseName}`, '/postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  return testDatabaseUrl(databaseName);
}

describe('the XMPP mirror of several server processes on one PostgreSQL database', () => {
  let ejabberd: PrivateEjabberd;
  let databaseUrl: string;
  let database: pg.Client;
  const nodes: ClusterNode[] = [];
  const rooms = new Map<string, ExpectedRoom>();
  const [alice, bob, carol, dave, erin] = [
    randomUUID(),
    randomUUID(),
    randomUUID(),
    randomUUID(),
    randomUUID(),
  ];

  const token = (userId: string) => signLocalToken(testJwtSecret, { userId, xmppDomain: ejabberd.domain });
  const as = (node: ClusterNode, userId: string): ChatClient => chatClientFor(node.url, token)(userId);
  const command = async (name: string, body: Record<string, unknown>) =>
    (await fetch(`${ejabberd.apiUrl}/${name}`, { method: 'POST', body: JSON.stringify(body) })).json();

  const startNode = async (name: string, env: Record<string, string>) => {
    const node = await startClusterNode(name, {
      ...xmppEnvironment(ejabberd),
      ...env,
      CHAT_DATABASE_URL: databaseUrl,
      AUTH_JWT_SECRET: testJwtSecret,
      NODE_ID: name,
      LOG_LEVEL: 'info',
    });
    nodes.push(node);
    return node;
  };
  const lease = async () =>
    (
      await database.query<{ owner: string; lease_until: Date }>(
        'SELECT owner, lease_until FROM chat_mirror_lease',
      )
    ).rows[0];
  const queued = async () =>
    Number(
      (await database.query<{ count: string }>('SELECT count(*) AS count FROM chat_mirror_outbox')).rows[0]
        ?.count,
    );
  /** Waits until the process `name` holds the lease (the server names it `node-<NODE_ID>-…`). */
  const leaseHeldBy = (name: string) =>
    eventually(async () => {
      expect((await lease())?.owner).toMatch(new RegExp(`^node-${name}-`));
    }, 30_000);
  const drained = () =>
    eventually(async () => {
      expect(await queued()).toBe(0);
    }, 60_000);

  const createRoom = async (node: ClusterNode, owner: string, members: string[], name: string) => {
    const response = await as(node, owner)('POST', '/rooms', {
      json: { type: 'group', name, membersIds: members },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const roomId = response.body.id as string;
    rooms.set(roomId, {
      name,
      // Owners of the API are plain MUC members (ownership stays in the API).
      members: Object.fromEntries([owner, ...members].map((member) => [member, 'member'])),
    });
    return roomId;
  };
  const addMember = async (node: ClusterNode, actor: string, roomId: string, userId: string) => {
    const response = await as(node, actor)('POST', `/rooms/${roomId}/members`, {
      json: { userId, owner: false, historyCleared: false },
    });
    expect(response.status).toBe(201);
    (rooms.get(roomId) as ExpectedRoom).members[userId] = 'member';
  };
  const removeMember = async (node: ClusterNode, actor: string, roomId: string, userId: string) => {
    expect((await as(node, actor)('DELETE', `/rooms/${roomId}/members/${userId}`)).status).toBe(204);
    delete (rooms.get(roomId) as ExpectedRoom).members[userId];
  };
  const rename = async (node: ClusterNode, actor: string, roomId: string, name: string) => {
    expect((await as(node, actor)('PUT', `/rooms/${roomId}`, { json: { name } })).status).toBe(200);
    (rooms.get(roomId) as ExpectedRoom).name = name;
  };
  const promote = async (node: ClusterNode, actor: string, roomId: string, userId: string) => {
    expect((await as(node, actor)('PUT', `/rooms/${roomId}/members/${userId}/owner`)).status).toBe(204);
    (rooms.get(roomId) as ExpectedRoom).members[userId] = 'member';
  };

  /** The room as ejabberd has it: title and affiliations. */
  const mirrored = async (roomId: string): Promise<ExpectedRoom | string> => {
    const affiliations = await command('get_room_affiliations', {
      name: roomId,
      service: ejabberd.mucDomain,
    });
    if (!Array.isArray(affiliations)) return JSON.stringify(affiliations);
    // mod_http_api gives a list of name and value pairs as one object.
    const options = (await command('get_room_options', {
      name: roomId,
      service: ejabberd.mucDomain,
    })) as Record<string, string>;
    return {
      name: options.title ?? '',
      members: Object.fromEntries(
        (affiliations as { username: string; affiliation: 'owner' | 'member' }[]).map((entry) => [
          entry.username,
          entry.affiliation,
        ]),
      ),
    };
  };
  const expectEveryRoomMirrored = async () => {
    for (const [roomId, room] of rooms) expect(await mirrored(roomId), roomId).toEqual(room);
  };
  /** The member notices (`memberAdded:<id>`, `memberRemoved:<id>`) in the room's archive, in order. */
  const notices = async (reader: string, roomId: string) => {
    const client = await connectXmppClient({
      service: ejabberd.c2sUrl,
      domain: ejabberd.domain,
      userId: reader,
      token: await token(reader),
    });
    try {
      const { messages, error } = await client.history(`${roomId}@${ejabberd.mucDomain}`);
      expect(error).toBeUndefined();
      return messages
        .map((message) => message.getChild('x', operationNamespace))
        .filter((operation) => operation !== undefined)
        .map((operation) => `${operation.getChildText('operation')}:${operation.getChildText('userId')}`)
        .filter((notice) => /^member(Added|Removed):/.test(notice));
    } finally {
      await client.stop();
    }
  };

  beforeAll(async () => {
    ejabberd = await startDocumentedEjabberd({ jwtSecret: testJwtSecret });
    databaseUrl = await freshDatabaseUrl();
    database = new pg.Client({ connectionString: databaseUrl });
    await database.connect();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await database?.end();
    await ejabberd?.stop();
  });

  it('wakes the draining process at once for a change made through another, then hands the lease over on stop', async () => {
    // An hour's poll and lease: only a notice can make a change reach ejabberd within the test.
    const slow = { CHAT_XMPP_POLL_MS: '3600000', CHAT_XMPP_LEASE_MS: '3600000' };
    const first = await startNode('xa', slow);
    await leaseHeldBy('xa');
    const second = await startNode('xb', slow);

    const roomId = await createRoom(second, alice, [bob, carol], 'Made on b');
    await eventually(async () => {
      expect(await mirrored(roomId)).toEqual(rooms.get(roomId));
    }, 20_000);
    const other = await createRoom(first, bob, [alice, erin], 'Made on a');
    await rename(second, bob, other, 'Renamed on b');
    await addMember(second, alice, roomId, dave);
    await removeMember(first, alice, roomId, carol);
    await promote(second, bob, other, alice);
    await drained();
    await expectEveryRoomMirrored();
    // Process a drained everything, b nothing.
    expect((await lease())?.owner).toMatch(/^node-xa-/);

    // A process that stops ends its lease: the next one need not wait an hour.
    await first.kill('SIGTERM');
    const after = await lease();
    expect(
      after?.lease_until.getTime(),
      `the lease after the stop: ${JSON.stringify(after)}`,
    ).toBeLessThanOrEqual(Date.now());
    await second.kill('SIGTERM');
  }, 180_000);

  it('loses nothing when the draining process is killed with operations queued: the other takes over after the lease', async () => {
    // Whatever the first test left (it ends the lease of its processes, unless it failed).
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await database.query('DELETE FROM chat_mirror_lease');
    const quick = { CHAT_XMPP_POLL_MS: '200', CHAT_XMPP_LEASE_MS: '5000' };
    const draining = await startNode('xc', quick);
    await leaseHeldBy('xc');
    const standby = await startNode('xd', quick);

    const shared = await createRoom(draining, alice, [bob, dave], 'Shared');
    const onStandby = await createRoom(standby, bob, [carol, dave], 'Standby');
    await addMember(standby, alice, shared, carol);
    await rename(draining, bob, onStandby, 'Standby renamed');
    await drained();
    await expectEveryRoomMirrored();
    expect((await lease())?.owner).toMatch(/^node-xc-/);

    // Frozen, the draining process keeps its lease but applies nothing: changes pile up.
    draining.process.kill('SIGSTOP');
    const late = await createRoom(standby, carol, [alice, erin], 'Late');
    await addMember(standby, alice, shared, erin);
    await removeMember(standby, alice, shared, bob);
    await rename(standby, carol, late, 'Late renamed');
    await removeMember(standby, bob, onStandby, dave);
    const held = await lease();
    const pending = await queued();
    expect(held?.owner).toMatch(/^node-xc-/);
    expect(pending).toBeGreaterThan(0);
    await draining.kill('SIGKILL');

    // The standby process takes over once the lease has run out, not before.
    let firstAppliedAt: number | undefined;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const left = await queued();
      if (left < pending) firstAppliedAt ??= Date.now();
      if (left === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await queued()).toBe(0);
    expect(firstAppliedAt).toBeGreaterThanOrEqual(held?.lease_until.getTime() ?? Number.POSITIVE_INFINITY);
    expect((await lease())?.owner).toMatch(/^node-xd-/);
    await expectEveryRoomMirrored();
    // Every member notice reached the archive once, in order.
    expect(await notices(alice, shared)).toEqual([
      `memberAdded:${bob}`,
      `memberAdded:${dave}`,
      `memberAdded:${carol}`,
      `memberAdded:${erin}`,
      `memberRemoved:${bob}`,
    ]);
    expect(await notices(carol, late)).toEqual([`memberAdded:${alice}`, `memberAdded:${erin}`]);
    expect(await notices(bob, onStandby)).toEqual([
      `memberAdded:${carol}`,
      `memberAdded:${dave}`,
      `memberRemoved:${dave}`,
    ]);
  }, 180_000);
});
