import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { type EventsClient, openEvents } from '../chat/chat-test-support.js';
import type { ClusterNode } from '../cluster/cluster-nodes.js';
import { testJwtSecret } from '../support/test-server.js';
import {
  type FaultCluster,
  participantsOf,
  prefix,
  startFaultCluster,
  startTwoUserMeeting,
  waitUntil,
} from './cluster-fault-support.js';

/** Long enough for the restart and the re-registration below to happen within it on a busy machine. */
const reconnectGraceSeconds = 15;

describe('an /events session taken over by another API node when Redis then restarts empty', () => {
  let cluster: FaultCluster;
  let apiA: ClusterNode;
  let apiB: ClusterNode;
  let resumed: EventsClient | undefined;

  beforeAll(async () => {
    cluster = await startFaultCluster('events_moved', {
      apiEnv: { MEETING_RECONNECT_GRACE_SECONDS: String(reconnectGraceSeconds) },
    });
    [apiA, apiB] = await Promise.all([
      cluster.start('api-a', 'api'),
      cluster.start('api-b', 'api'),
      cluster.start('media-1', 'media'),
    ]);
  }, 90_000);

  afterAll(async () => {
    resumed?.socket.terminate();
    await cluster?.stop();
  });

  it('leaves the user in her meeting when the node she left ends its copy of the session', async () => {
    const { ids, alice, bob, meetingId } = await startTwoUserMeeting(cluster, apiA.url, apiB.url, {
      bobJoins: true,
    });
    const member = `${ids.alice} ${alice.queueId}`;
    const queuesOf = (nodeId: string) => cluster.client.smembers(`${prefix}api-node:${nodeId}:queues`);

    // Alice's connection to A is lost; she resumes her session through B, which takes it over. A
    // keeps its copy through its grace.
    alice.events.socket.terminate();
    resumed = await openEvents(
      apiB.url,
      await signLocalToken(testJwtSecret, { userId: ids.alice }),
      `?queueId=${alice.queueId}`,
    );
    expect(resumed.messages[0]).toEqual({
      type: 'websocketConnected',
      queueId: alice.queueId,
      resumed: true,
    });
    expect(await queuesOf('api-b')).toContain(member);
    expect(await queuesOf('api-a')).not.toContain(member);

    // Redis loses everything: both nodes record their sessions again, so A records hers too.
    await cluster.redis.restart();
    await waitUntil(
      async () => (await queuesOf('api-a')).includes(member) && (await queuesOf('api-b')).includes(member),
      'both nodes to record her session again',
    );

    // A's grace ends: it must learn that B took the session over and forget it, not leave her
    // meeting (Bob would be told she left).
    const left = () => bob.events.messages.some((message) => message.type === 'MEETING_PARTICIPANT_LEFT');
    await waitUntil(
      async () => apiA.output().includes('another node took it over') || left(),
      "A's grace to end",
      (reconnectGraceSeconds + 30) * 1000,
    );
    expect(left(), 'Bob was told that Alice left').toBe(false);
    expect(await participantsOf(bob, meetingId)).toEqual([ids.alice, ids.bob].sort());
    expect(apiA.output()).toContain('another node took it over');
    expect(await queuesOf('api-a')).not.toContain(member);
    expect(await queuesOf('api-b')).toContain(member);
    expect(await cluster.client.get(`${prefix}events-queue:${alice.queueId}:owner`)).toMatch(/^api-b \d+$/);
  }, 120_000);
});
