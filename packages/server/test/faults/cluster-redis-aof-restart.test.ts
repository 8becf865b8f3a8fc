import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterGraceMs } from '../../src/meetings/media/media-for-roles.js';
import type { ClusterNode } from '../cluster/cluster-nodes.js';
import {
  type FaultCluster,
  heartbeatMs,
  participantsOf,
  prefix,
  startFaultCluster,
  startTwoUserMeeting,
  waitUntil,
} from './cluster-fault-support.js';

describe('a Redis restarted from its append-only file after the heartbeats expired', () => {
  let cluster: FaultCluster;
  let apiA: ClusterNode;
  let apiB: ClusterNode;

  beforeAll(async () => {
    cluster = await startFaultCluster('aof', { appendOnly: true });
    [apiA, apiB] = await Promise.all([
      cluster.start('api-a', 'api'),
      cluster.start('api-b', 'api'),
      cluster.start('media-1', 'media'),
    ]);
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('takes no live node for dead and drops no participant', async () => {
    const { ids, alice, bob, meetingId } = await startTwoUserMeeting(cluster, apiA.url, apiB.url, {
      bobJoins: true,
    });

    const registrations = ['api-node:api-a', 'api-node:api-b', 'media-node:media-1'].map(
      (key) => prefix + key,
    );
    const expiries = await Promise.all(registrations.map((key) => cluster.client.pexpiretime(key)));
    expect(expiries.every((expiry) => expiry > 0)).toBe(true);
    // Down until every registration written before the kill has expired: the file keeps the sets of
    // nodes and their sessions, but each heartbeat key comes back expired.
    await cluster.redis.stop();
    const lastExpiry = Math.max(...expiries);
    await waitUntil(async () => Date.now() > lastExpiry + heartbeatMs, 'the registrations to expire');
    // api-b reconnects last (held for a moment, shorter than an expiry, as reconnections that back
    // off drift apart in a real outage): api-a looks at the cluster a few times before it registers.
    apiB.process.kill('SIGSTOP');
    await cluster.redis.start();
    const restartedAt = Date.now();
    expect(await cluster.client.smembers(`${prefix}api-nodes`)).toHaveLength(2);
    const apiAKey = `${prefix}api-node:api-a`;
    await waitUntil(async () => (await cluster.client.exists(apiAKey)) === 1, 'api-a registered again');
    const firstBeat = await cluster.client.get(apiAKey);
    await waitUntil(async () => (await cluster.client.get(apiAKey)) !== firstBeat, 'a heartbeat of api-a');
    const secondBeat = await cluster.client.get(apiAKey);
    await waitUntil(async () => (await cluster.client.get(apiAKey)) !== secondBeat, 'a second heartbeat');
    apiB.process.kill('SIGCONT');

    // Through the grace and a few heartbeats past it: nobody is buried, nothing is dropped.
    const judgedBy = restartedAt + clusterGraceMs(heartbeatMs) + 3 * heartbeatMs;
    let buried: string[] = [];
    await waitUntil(
      async () => {
        buried = await cluster.client.keys(`${prefix}*:buried`);
        return buried.length > 0 || Date.now() > judgedBy;
      },
      'the grace after the restart to pass',
      judgedBy - Date.now() + 10_000,
    );
    expect(buried, 'nodes taken for dead').toEqual([]);
    expect(await participantsOf(alice, meetingId)).toEqual([ids.alice, ids.bob].sort());
    for (const key of registrations) expect(await cluster.client.exists(key)).toBe(1);
    expect(alice.events.messages.some((message) => message.type === 'MEETING_PARTICIPANT_LEFT')).toBe(false);
    expect(alice.events.messages.some((message) => message.type === 'MEETING_STOPPED')).toBe(false);
    await Promise.all([alice.events.close(), bob.events.close()]);
  }, 60_000);
});
