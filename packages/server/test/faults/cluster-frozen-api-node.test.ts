import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_FENCED_CLOSE_CODE } from '../../src/meetings/meetings-part.js';
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
  waitUntil,
} from './cluster-fault-support.js';

describe('an API node frozen past the dead threshold, then resumed', () => {
  let cluster: FaultCluster;
  let frozen: ClusterNode;
  let survivor: ClusterNode;

  let media: ClusterNode;

  beforeAll(async () => {
    cluster = await startFaultCluster('frozen');
    [frozen, survivor, media] = await Promise.all([
      cluster.start('api-a', 'api'),
      cluster.start('api-b', 'api'),
      cluster.start('media-1', 'media'),
    ]);
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('cannot apply a join it received while frozen, closes its sessions with 4002, registers again and leaves no ghost', async () => {
    const ids = users('alice', 'bob', 'carol');
    const alice = await userOn(frozen.url, ids.alice);
    const carol = await userOn(frozen.url, ids.carol);
    const bob = await userOn(survivor.url, ids.bob);
    const meetingId = await startedMeeting(bob, [ids.alice, ids.carol]);
    expect((await join(bob, meetingId)).status).toBe(200);
    expect((await join(alice, meetingId)).status).toBe(200);

    frozen.process.kill('SIGSTOP');
    // Carol's join waits in the frozen node's socket buffer.
    const staleJoin = join(carol, meetingId);
    // The other API node takes the frozen one for dead and ends its sessions: Alice leaves.
    expect(
      await bob.events.next(
        (event) => event.type === 'MEETING_PARTICIPANT_LEFT' && event.userId === ids.alice,
        20_000,
      ),
    ).toMatchObject({ meetingId });
    expect(await participantsOf(bob, meetingId)).toEqual([ids.bob]);

    frozen.process.kill('SIGCONT');
    const refused = await staleJoin;
    expect([400, 503], JSON.stringify(refused.body)).toContain(refused.status);
    expect(await alice.closed).toBe(NODE_FENCED_CLOSE_CODE);
    expect(await carol.closed).toBe(NODE_FENCED_CLOSE_CODE);

    // Registered again, with none of the sessions it closed.
    await waitUntil(
      async () => Number((await cluster.apiMediaHealth(frozen)).fencings) >= 1,
      'the resumed node to report its fencing',
    );
    await waitUntil(
      async () => (await cluster.client.exists(`${prefix}api-node:api-a`)) === 1,
      'the resumed node registered again',
    );
    expect(await cluster.client.sismember(`${prefix}api-nodes`, 'api-a')).toBe(1);
    expect(await cluster.client.exists(`${prefix}api-node:api-a:buried`)).toBe(0);
    expect(await cluster.client.smembers(`${prefix}api-node:api-a:queues`)).toEqual([]);
    expect(await participantsOf(bob, meetingId)).toEqual([ids.bob]);

    // Its clients reconnect and join again through it; the survivor sees the same meeting.
    const aliceAgain = await userOn(frozen.url, ids.alice);
    expect((await join(aliceAgain, meetingId)).status).toBe(200);
    expect(await cluster.client.smembers(`${prefix}api-node:api-a:queues`)).toEqual([
      `${ids.alice} ${aliceAgain.queueId}`,
    ]);
    expect(await participantsOf(bob, meetingId)).toEqual([ids.alice, ids.bob].sort());
    await Promise.all([aliceAgain.events.close(), bob.events.close()]);
  }, 60_000);

  it('cannot apply a join frozen under the meeting lock once the lock passed to another node (fencing token)', async () => {
    const ids = users('dora', 'erin', 'fay');
    const dora = await userOn(frozen.url, ids.dora);
    const erin = await userOn(survivor.url, ids.erin);
    const meetingId = await startedMeeting(erin, [ids.dora, ids.fay]);
    expect((await join(erin, meetingId)).status).toBe(200);
    const lockKey = `${prefix}meeting-lock:${meetingId}`;

    // Dora's join holds the meeting lock on api-a, waiting for the media node (held a moment).
    media.process.kill('SIGSTOP');
    const staleJoin = join(dora, meetingId);
    await waitUntil(async () => (await cluster.client.exists(lockKey)) === 1, 'api-a to hold the lock');
    frozen.process.kill('SIGSTOP');
    media.process.kill('SIGCONT');
    // Its lease expires while it is frozen (the key goes, as at the end of the lease), and api-b
    // stops the meeting under the lock.
    await cluster.client.del(lockKey);
    const stopped = await erin.call('POST', `/meetings/${meetingId}/stop`);
    expect(stopped.status).toBe(200);

    frozen.process.kill('SIGCONT');
    const refused = await staleJoin;
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body).toMatchObject({ code: 'dependency_unavailable' });
    expect(String(refused.body.message)).toContain('another node took it since');
    const meeting = await erin.call('GET', `/meetings/${meetingId}`);
    expect(meeting.body).toMatchObject({ active: false, participants: [] });
    await waitUntil(
      async () => !(await cluster.hostedMeetings(media)).some((hosted) => hosted.meetingId === meetingId),
      'the refused join to take back its media',
    );
    await Promise.all([dora.events.close(), erin.events.close()]);
  }, 60_000);
});
