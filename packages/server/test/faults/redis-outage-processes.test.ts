import { eventually, type PrivateRedis, startPrivateRedis } from '@collab-suite/chat-domain/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { chatClientFor, type EventsClient, openEvents, users } from '../chat/chat-test-support.js';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { testJwtSecret } from '../support/test-server.js';

const token = (userId: string) => signLocalToken(testJwtSecret, { userId });

/**
 * Two server processes (`dist/main.js`, built by `pnpm build`; each runs API and media) share a
 * private Redis, killed with SIGKILL and started again, and a PostgreSQL database of this file's own.
 */
describe('a Redis outage under two server processes', () => {
  let redis: PrivateRedis;
  const nodes: ClusterNode[] = [];
  const sockets: EventsClient[] = [];
  const readiness = async (node: ClusterNode) => (await fetch(`${node.url}/health/ready/`)).status;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const databaseUrl = await testDatabaseUrl('collab_test_faults_redis');
    const env = {
      CHAT_REDIS_URL: redis.url,
      CHAT_DATABASE_URL: databaseUrl,
      AUTH_JWT_SECRET: testJwtSecret,
      LOG_LEVEL: 'info',
    };
    nodes.push(...(await Promise.all([startClusterNode('node-a', env), startClusterNode('node-b', env)])));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
    await Promise.all(nodes.map((node) => node.kill('SIGTERM')));
    await redis?.stop();
  });

  it('answers a room creation while Redis is down, delivers its events once it returns, and stays alive', async () => {
    const [nodeA, nodeB] = nodes;
    if (nodeA === undefined || nodeB === undefined) throw new Error('two nodes expected');
    const { owner, first, second } = users('owner', 'first', 'second');
    for (const userId of [first, second]) sockets.push(await openEvents(nodeB.url, await token(userId)));
    await redis.stop();
    await eventually(async () => {
      expect(await readiness(nodeA)).toBe(503);
      expect(await readiness(nodeB)).toBe(503);
    }, 10_000);
    const created = await chatClientFor(nodeA.url, token)(owner)('POST', '/rooms', {
      json: { type: 'group', name: 'Processes', membersIds: [first, second] },
    });
    expect(created.status).toBe(201);
    expect(await readiness(nodeA)).toBe(503);
    await redis.start();
    for (const socket of sockets) {
      await socket.next((frame) => frame.type === 'ROOM_CREATED' && frame.roomId === created.body.id, 15_000);
      await socket.next((frame) => frame.type === 'resync', 15_000);
    }
    await eventually(async () => {
      expect(await readiness(nodeA)).toBe(200);
      expect(await readiness(nodeB)).toBe(200);
    }, 10_000);
    for (const node of nodes) {
      expect(node.process.exitCode).toBeNull();
      // One line per connection and outage, not one per reconnection attempt.
      const errors = node
        .output()
        .split('\n')
        .filter((line) => line.includes('chat event bus error'));
      expect(errors.length, node.output()).toBeLessThanOrEqual(4);
    }
  });
});
