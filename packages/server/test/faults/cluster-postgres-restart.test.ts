import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterNode } from '../cluster/cluster-nodes.js';
import {
  type FaultCluster,
  holdersOf,
  participantsOf,
  startFaultCluster,
  startTwoUserMeeting,
} from './cluster-fault-support.js';
import { chatAs, isAlive, RoomWrites, untilUnavailable } from './postgres-fault-support.js';

const writer = '5a1f3e2c-0d4b-4c6a-9e7f-000000000023';
/**
 * Milliseconds from now until a room creation succeeds through every API node (each tried in
 * turn until it answers 201), or throws after a minute. The time is printed, never asserted (the
 * issue's target is 2 s; a busy machine takes longer without anything being wrong): the speed of
 * the recovery is for the benches, this test checks that it happens.
 */
async function recoveryMs(nodes: readonly ClusterNode[], writes: RoomWrites): Promise<number> {
  const started = performance.now();
  for (const node of nodes) {
    const deadline = Date.now() + 60_000;
    while ((await writes.create(chatAs(node, writer), 'Recovery')).status !== 201) {
      if (Date.now() > deadline) throw new Error(`${node.name} did not write again within a minute`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return performance.now() - started;
}

// Two API nodes and two media nodes on a PostgreSQL and a Redis of the test's own.
describe('PostgreSQL restarted and killed under a cluster of two API and two media nodes', () => {
  let cluster: FaultCluster;
  let apis: ClusterNode[];
  let media: ClusterNode[];
  const writes = new RoomWrites();

  beforeAll(async () => {
    cluster = await startFaultCluster('pgrestart', {
      privatePostgres: true,
      apiEnv: { CHAT_ROOM_CREATIONS_PER_MINUTE: '100000' },
    });
    media = await cluster.startMediaNodes(2);
    // One after the other: both migrate the same database at start-up.
    apis = [await cluster.start('api-a', 'api'), await cluster.start('api-b', 'api')];
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('keeps every process and meeting, answers 503 with Retry-After while it is away, and writes again once it is back', async () => {
    const postgres = cluster.postgres;
    const [apiA, apiB] = apis;
    if (postgres === undefined || apiA === undefined || apiB === undefined)
      throw new Error('expected a cluster');
    const { ids, alice, bob, meetingId, home } = await startTwoUserMeeting(cluster, apiA.url, apiB.url, {
      bobJoins: true,
    });

    const load = writes.keepCreating(apis.map((node) => chatAs(node, writer)));
    await postgres.restart();
    const afterRestart = await recoveryMs(apis, writes);

    await postgres.stop('kill');
    for (const node of apis) {
      const answer = await untilUnavailable(() => writes.create(chatAs(node, writer), 'Away'), node.name);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    await postgres.start();
    const afterKill = await recoveryMs(apis, writes);
    await load.stop();
    console.log(
      `recovery after PostgreSQL came back (every API node writing again): fast restart ${Math.round(afterRestart)} ms, after a kill ${Math.round(afterKill)} ms`,
    );

    expect([...apis, ...media].map(isAlive)).toEqual([true, true, true, true]);
    expect(writes.wrong).toEqual([]);
    const stored = new Set(
      ((await chatAs(apiB, writer)('GET', '/rooms')).body as unknown as { id: string }[]).map(
        (room) => room.id,
      ),
    );
    expect(writes.acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    // The meeting lives on, on its one media node, with both participants and no one else.
    expect(await cluster.recordedHome(meetingId)).toBe(home);
    expect((await holdersOf(cluster, media, meetingId)).map((holder) => holder.name)).toEqual([home]);
    expect(await participantsOf(alice, meetingId)).toEqual([ids.alice, ids.bob].sort());
    expect(await participantsOf(bob, meetingId)).toEqual([ids.alice, ids.bob].sort());
    await Promise.all([alice.events.close(), bob.events.close()]);
  }, 180_000);
});
