import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../chat/chat-test-support.js';
import type { ClusterNode } from '../cluster/cluster-nodes.js';
import {
  type FaultCluster,
  join,
  participantsOf,
  prefix,
  startedMeeting,
  startFaultCluster,
  userOn,
} from './cluster-fault-support.js';

// Two media node processes and an API node: the database names the wrong home for a meeting (as
// after a home wrongly taken for dead), and the node named refuses it.
describe('a media node answers only for what it hosts (two media node processes)', () => {
  let cluster: FaultCluster;
  let api: ClusterNode;
  let media: ClusterNode[];

  beforeAll(async () => {
    cluster = await startFaultCluster('refusal');
    media = await Promise.all([cluster.start('media-1', 'media'), cluster.start('media-2', 'media')]);
    api = await cluster.start('api-r', 'api');
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('refuses a join for a meeting another live node hosts; the API node sends it there and records that home again', async () => {
    const ids = users('alice', 'bob');
    const alice = await userOn(api.url, ids.alice);
    const bob = await userOn(api.url, ids.bob);
    const meetingId = await startedMeeting(alice, [ids.bob]);
    expect((await join(alice, meetingId)).status).toBe(200);
    const home = await cluster.recordedHome(meetingId);
    const stranger = media.find((node) => node.name !== home);
    if (home === null || stranger === undefined) throw new Error('expected a home and another media node');

    const database = new pg.Client({ connectionString: cluster.databaseUrl });
    await database.connect();
    try {
      await database.query('UPDATE chat_meetings SET media_node_id = $2 WHERE id = $1', [
        meetingId,
        stranger.name,
      ]);
    } finally {
      await database.end();
    }
    // Redis still names the real home, which the stranger checks before creating any media.
    expect(await cluster.client.get(`${prefix}meeting-media:${meetingId}`)).toBe(home);

    const joined = await join(bob, meetingId);
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    const hosting = await Promise.all(media.map((node) => cluster.hostedMeetings(node)));
    const holders = media.filter((_node, index) =>
      hosting[index]?.some((meeting) => meeting.meetingId === meetingId),
    );
    expect(holders.map((node) => node.name)).toEqual([home]);
    expect(hosting[media.findIndex((node) => node.name === home)]).toContainEqual({
      meetingId,
      participants: 2,
    });
    expect(await cluster.recordedHome(meetingId)).toBe(home);
    expect(await participantsOf(alice, meetingId)).toEqual([ids.alice, ids.bob].sort());
    expect(api.output()).toContain('a media node refused a meeting hosted elsewhere');
    for (const node of [api, ...media]) expect(node.process.exitCode).toBeNull();
    await Promise.all([alice.events.close(), bob.events.close()]);
  }, 60_000);
});
