import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../chat/chat-test-support.js';
import type { ClusterNode } from '../cluster/cluster-nodes.js';
import {
  type FaultCluster,
  holdersOf,
  join,
  participantsOf,
  prefix,
  startedMeeting,
  startFaultCluster,
  startTwoUserMeeting,
  userOn,
  waitUntil,
} from './cluster-fault-support.js';

describe('a Redis restarted empty under two media nodes', () => {
  let cluster: FaultCluster;
  let api: ClusterNode;
  let media: ClusterNode[];

  beforeAll(async () => {
    cluster = await startFaultCluster('loss');
    media = await cluster.startMediaNodes(2);
    api = await cluster.start('api-a', 'api');
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('keeps each meeting on its one media node: a join after the loss lands where the meeting lives', async () => {
    const { ids, alice, bob, meetingId, home } = await startTwoUserMeeting(cluster, api.url, api.url);
    expect(['media-1', 'media-2']).toContain(home);
    expect(await cluster.client.get(`${prefix}meeting-media:${meetingId}`)).toBe(home);

    // Every placement, registration and session record is gone; the media node holding Alice is
    // the busier one, so a placement made from Redis alone would pick the other.
    await cluster.redis.restart();
    const joined = await join(bob, meetingId);
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);

    expect(await holdersOf(cluster, media, meetingId)).toEqual([{ name: home, participants: 2 }]);
    expect(await cluster.recordedHome(meetingId)).toBe(home);
    expect(await participantsOf(alice, meetingId)).toEqual([ids.alice, ids.bob].sort());
    // The media nodes registered again and the home announced its meeting: Redis caches it again.
    await waitUntil(
      async () => (await cluster.client.get(`${prefix}meeting-media:${meetingId}`)) === home,
      'the placement cached in Redis again',
    );
    await waitUntil(
      async () => (await cluster.client.smembers(`${prefix}media-nodes`)).length === 2,
      'both media nodes registered again',
    );
    // The API node registered again with the sessions connected to it, so that its death would
    // still end them.
    await waitUntil(
      async () => (await cluster.client.sismember(`${prefix}api-nodes`, 'api-a')) === 1,
      'the API node registered again',
    );
    await waitUntil(
      async () => (await cluster.client.smembers(`${prefix}api-node:api-a:queues`)).length === 2,
      'its sessions recorded again',
    );
    expect((await cluster.client.smembers(`${prefix}api-node:api-a:queues`)).sort()).toEqual(
      [`${ids.alice} ${alice.queueId}`, `${ids.bob} ${bob.queueId}`].sort(),
    );
    await Promise.all([alice.events.close(), bob.events.close()]);
  }, 60_000);

  it('stops a meeting whose media node died while Redis had lost its data, found from PostgreSQL', async () => {
    const ids = users('carl', 'dana');
    const carl = await userOn(api.url, ids.carl);
    const meetingId = await startedMeeting(carl, [ids.dana]);
    expect((await join(carl, meetingId)).status).toBe(200);
    const home = await cluster.recordedHome(meetingId);
    const dying = media.find((node) => node.name === home);
    const survivor = media.find((node) => node.name !== home);
    if (dying === undefined || survivor === undefined)
      throw new Error(`expected ${home} among the media nodes`);

    // The home dies while Redis is down, and Redis comes back empty: only PostgreSQL names it.
    await cluster.redis.stop();
    await dying.kill('SIGKILL');
    await cluster.redis.start();
    expect(
      await carl.events.next(
        (event) => event.type === 'MEETING_STOPPED' && event.meetingId === meetingId,
        30_000,
      ),
    ).toMatchObject({ reason: 'media_server_failed' });
    expect(await cluster.recordedHome(meetingId)).toBeNull();
    expect((await carl.call('POST', `/meetings/${meetingId}/start`)).status).toBe(200);
    expect((await join(carl, meetingId)).status).toBe(200);
    expect(await cluster.recordedHome(meetingId)).toBe(survivor.name);
    await carl.events.close();
  }, 60_000);
});
