import { quadrantImage } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { upload } from '../preview/preview-test-support.js';
import { fetchHealth, testJwtSecret } from '../support/test-server.js';
import {
  chatAs,
  type FaultPostgres,
  isAlive,
  isUnavailableAnswer,
  RoomWrites,
  samlCall,
  startFaultPostgres,
  until,
  untilUnavailable,
} from './postgres-fault-support.js';

const owner = '5a1f3e2c-0d4b-4c6a-9e7f-000000000001';
const samlDomain = 'faults.example';

/** The names of the dependencies `/health/` shows not ready on `node`. */
async function notReady(node: ClusterNode): Promise<string[]> {
  const health = (await (await fetchHealth(node.url)).json()) as {
    dependencies: { name: string; ready: boolean }[];
  };
  return health.dependencies.filter((dependency) => !dependency.ready).map((dependency) => dependency.name);
}

/** The ids of every room of `owner`, read through `node`. */
async function roomIdsOf(node: ClusterNode): Promise<Set<string>> {
  const response = await chatAs(node, owner)('GET', '/rooms');
  expect(response.status).toBe(200);
  return new Set((response.body as { id: string }[]).map((room) => room.id));
}

// Two API processes on one PostgreSQL of the test's own, as an operator runs them behind a proxy.
describe('PostgreSQL faults under two server processes', () => {
  let postgres: FaultPostgres;
  const nodes: ClusterNode[] = [];
  const writes = new RoomWrites();

  beforeAll(async () => {
    postgres = await startFaultPostgres();
    const env = {
      CHAT_DATABASE_URL: postgres.chatUrl,
      SAML_DATABASE_URL: postgres.samlUrl,
      AUTH_JWT_SECRET: testJwtSecret,
      CHAT_ROOM_CREATIONS_PER_MINUTE: '100000',
      PREVIEW_UPLOADS_PER_MINUTE: '0',
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
    };
    // One after the other: both migrate the same database at start-up.
    nodes.push(await startClusterNode('pg-fault-a', env));
    nodes.push(await startClusterNode('pg-fault-b', env));
    for (const node of nodes) expect((await writes.create(chatAs(node, owner), 'Before')).status).toBe(201);
    expect(
      (await samlCall(nodes[0] as ClusterNode, 'PUT', samlDomain, { 'sp.entityid': 'urn:kept' })).status,
    ).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await postgres?.server.destroy();
  });

  it('a fast restart ends neither process, and every write answered 201 around it is kept', async () => {
    const load = writes.keepCreating(nodes.map((node) => chatAs(node, owner)));
    await until(async () => writes.acknowledged.length >= 6, 'writes before the restart');
    await postgres.server.restart();
    const acknowledgedAtReturn = writes.acknowledged.length;
    // Back without a restart of the servers: each node writes again.
    await until(
      async () => writes.acknowledged.length >= acknowledgedAtReturn + 4,
      'writes after the restart',
    );
    await load.stop();

    expect(nodes.map(isAlive)).toEqual([true, true]);
    expect(nodes.map((node) => node.output())).not.toContainEqual(
      expect.stringContaining("Unhandled 'error' event"),
    );
    expect(writes.wrong).toEqual([]);
    for (const node of nodes) {
      const stored = await roomIdsOf(node);
      expect(writes.acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    }
  }, 120_000);

  it('while PostgreSQL is killed, database routes answer 503 with Retry-After and previews still work', async () => {
    await postgres.server.stop('kill');
    const load = writes.keepCreating(nodes.map((node) => chatAs(node, owner)));
    for (const node of nodes) {
      const chat = chatAs(node, owner);
      // Backends of a killed server answer on pooled connections until they notice: wait for the state.
      await untilUnavailable(() => writes.create(chat, 'During'), 'POST /rooms');
      await untilUnavailable(() => chat('GET', '/rooms'), 'GET /rooms');
      const saml = await untilUnavailable(() => samlCall(node, 'GET', samlDomain), 'GET /saml');
      expect(saml.body).toMatchObject({ ok: false, code: 'dependency_unavailable' });
      expect(JSON.stringify(saml.body)).not.toContain(postgres.samlUrl);
      // The value stored already: should a backend still take it, nothing changes.
      await untilUnavailable(
        () => samlCall(node, 'PUT', samlDomain, { 'sp.entityid': 'urn:kept' }),
        'PUT /saml',
      );
      // An input that is wrong whatever the database does is still the caller's fault.
      expect((await chat('POST', '/rooms', { json: { type: 'no-such-type' } })).status).toBe(400);

      await until(async () => (await fetch(`${node.url}/health/ready/`)).status === 503, 'readiness to fail');
      expect(await notReady(node)).toEqual(expect.arrayContaining(['chat-database', 'saml-store']));
      const thumbnail = await upload(
        `${node.url}/preview/image/16x16/thumbnail/`,
        await quadrantImage(40, 20, 'png'),
      );
      expect(thumbnail.status).toBe(200);
    }

    // An outage of some length: writes keep answering 503, never 500, never hanging.
    const unavailableSoFar = writes.unavailable.length;
    await until(
      async () => writes.unavailable.length >= unavailableSoFar + 40,
      'more writes during the outage',
    );
    await postgres.server.start();
    const acknowledgedAtReturn = writes.acknowledged.length;
    await until(
      async () => writes.acknowledged.length >= acknowledgedAtReturn + 4,
      'writes after the return',
    );
    await load.stop();
    for (const node of nodes) {
      await until(
        async () => (await fetch(`${node.url}/health/ready/`)).status === 200,
        'readiness after the return',
      );
      expect((await writes.create(chatAs(node, owner), 'After')).status).toBe(201);
      const saml = await samlCall(node, 'GET', samlDomain);
      expect([saml.status, saml.body['sp.entityid']]).toEqual([200, 'urn:kept']);
      const stillNotReady = await notReady(node);
      expect(stillNotReady).not.toContain('chat-database');
      expect(stillNotReady).not.toContain('saml-store');
    }
    expect(nodes.map(isAlive)).toEqual([true, true]);
    expect(writes.wrong).toEqual([]);
    const stored = await roomIdsOf(nodes[1] as ClusterNode);
    expect(writes.acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect(stored.size).toBeGreaterThanOrEqual(writes.acknowledged.length);
  }, 120_000);

  it('while PostgreSQL hangs (SIGSTOP), database routes answer 503 within the default 2 s bounds, and work once it answers', async () => {
    // Both nodes run with the default DATABASE_QUERY_TIMEOUT_MS (2000): pooled connections get no
    // answer, new ones are taken by the kernel and never answered.
    postgres.server.pause();
    const waits: number[] = [];
    try {
      for (const node of nodes) {
        const chat = chatAs(node, owner);
        const calls = [
          () => writes.create(chat, 'Hung'),
          () => chat('GET', '/rooms'),
          () => samlCall(node, 'GET', samlDomain),
        ];
        for (const call of calls) {
          const started = performance.now();
          const answer = await call();
          waits.push(performance.now() - started);
          expect(isUnavailableAnswer(answer), `${answer.status} ${JSON.stringify(answer.body)}`).toBe(true);
        }
      }
    } finally {
      postgres.server.resume();
    }
    const longest = Math.max(...waits);
    console.log(
      `longest request while PostgreSQL hung: ${Math.round(longest)} ms (bounds: 2000 ms to connect, 2000 ms per statement)`,
    );
    // Far above the 2 s bound, for a busy machine, and below the former 10 s default.
    expect(longest).toBeLessThan(8000);
    for (const node of nodes) {
      await until(
        async () => (await writes.create(chatAs(node, owner), 'Resumed')).status === 201,
        'a write after PostgreSQL resumed',
      );
    }
    expect(nodes.map(isAlive)).toEqual([true, true]);
    expect(writes.wrong).toEqual([]);
  }, 120_000);
});
