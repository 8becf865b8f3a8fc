import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterNode } from '../cluster/cluster-nodes.js';
import {
  type FaultCluster,
  holdersOf,
  join,
  participantsOf,
  prefix,
  startFaultCluster,
  startTwoUserMeeting,
} from './cluster-fault-support.js';

// Two media node processes and an API node: the database names the wrong home for a meeting (as
// after a home wrongly taken for dead), and the node named refuses it.
describe('a media node answers only for what it hosts (two media node processes)', () => {
  let cluster: FaultCluster;
  let api: ClusterNode;
  let media: ClusterNode[];

  beforeAll(async () => {
    cluster = await startFaultCluster('refusal');
    media = await cluster.startMediaNodes(2);
    api = await cluster.start('api-r', 'api');
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('refuses a join for a meeting another live node hosts; the API node sends it there and records that home again', async () => {
    const { ids, alice, bob, meetingId, home } = await startTwoUserMeeting(cluster, api.url, api.url);
    const stranger = media.find((node) => node.name !== home);
    if (home === null || stranger === undefined) throw new Error('expected a home and another media node');

    await cluster.query('UPDATE chat_meetings SET media_node_id = $2 WHERE id = $1', [
      meetingId,
      stranger.name,
    ]);
    // Redis still names the real home, which the stranger checks before creating any media.
    expect(await cluster.client.get(`${prefix}meeting-media:${meetingId}`)).toBe(home);

    const joined = await join(bob, meetingId);
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    expect(await holdersOf(cluster, media, meetingId)).toEqual([{ name: home, participants: 2 }]);
    expect(await cluster.recordedHome(meetingId)).toBe(home);
    expect(await participantsOf(alice, meetingId)).toEqual([ids.alice, ids.bob].sort());
    expect(api.output()).toContain('a media node refused a meeting hosted elsewhere');
    for (const node of [api, ...media]) expect(node.process.exitCode).toBeNull();
    await Promise.all([alice.events.close(), bob.events.close()]);
  }, 60_000);
});
