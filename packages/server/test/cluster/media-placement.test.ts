import { randomUUID } from 'node:crypto';
import { loopbackSfuOptions } from '@collab-suite/webrtc-sfu/testing';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chatErrorMapper } from '../../src/chat/error-status.js';
import {
  type ClusterMediaServer,
  type ClusterMediaServerOptions,
  createClusterMediaServer,
} from '../../src/meetings/media/cluster-media-server.js';
import { type MediaNode, startMediaNode } from '../../src/meetings/media/media-node.js';

const redisUrl = `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/11`;
const logger = pino({ level: 'silent' });

/** Media nodes and API-side media servers on one Redis prefix of their own, closed after each test. */
function cluster() {
  const prefix = `collab-test:${randomUUID()}:`;
  const opened: { close(): Promise<void> }[] = [];
  return {
    prefix,
    async mediaNode(nodeId: string, capacity: number): Promise<MediaNode> {
      const node = await startMediaNode({
        redisUrl,
        prefix,
        nodeId,
        address: '127.0.0.1',
        capacity,
        sfuOptions: loopbackSfuOptions,
        heartbeatMs: 200,
        heartbeatTtlMs: 1000,
        logger,
      });
      opened.push(node);
      return node;
    },
    async apiNode(
      apiNodeId: string,
      coordination?: ClusterMediaServerOptions['coordination'],
    ): Promise<ClusterMediaServer> {
      const media = await createClusterMediaServer({
        redisUrl,
        prefix,
        apiNodeId,
        iceServers: [],
        commandTimeoutMs: 5000,
        watchMs: 200,
        ...(coordination ? { coordination } : {}),
        logger,
      });
      opened.push(media);
      return media;
    },
    async close() {
      await Promise.all(opened.splice(0).map((item) => item.close()));
      const redis = new Redis(redisUrl);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}

let current: ReturnType<typeof cluster> | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe('placing meetings on media nodes', () => {
  it('skips a full node, and refuses with media_unavailable and a retry delay when all are full', async () => {
    current = cluster();
    const first = await current.mediaNode('media-a', 1);
    const second = await current.mediaNode('media-b', 1);
    const api = await current.apiNode('api-1');
    await api.addParticipant('meeting-1', 'alice');
    await api.addParticipant('meeting-2', 'bob');
    expect([first.describe().participants, second.describe().participants]).toEqual([1, 1]);
    const refused = await api.addParticipant('meeting-3', 'carol').catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'media_unavailable', details: { retryAfterSeconds: 5 } });
    const mapped = chatErrorMapper.map(refused as Error);
    expect(mapped.status).toBe(503);
    expect(mapped.headers).toEqual({ 'Retry-After': '5' });
    // A meeting already placed still takes calls on its node.
    await api.removeParticipant('meeting-1', 'alice');
    await api.addParticipant('meeting-3', 'carol');
    expect(first.describe().meetings.map((meeting) => meeting.meetingId)).toContain('meeting-3');
  });

  it('places a meeting once when two API nodes open it at the same moment', async () => {
    current = cluster();
    const first = await current.mediaNode('media-a', 100);
    const second = await current.mediaNode('media-b', 100);
    const apis = await Promise.all([current.apiNode('api-1'), current.apiNode('api-2')]);
    for (let round = 0; round < 10; round += 1) {
      const meetingId = `meeting-${round}`;
      await Promise.all(apis.map((api) => api.openMeeting(meetingId)));
      const holders = [first, second].filter((node) =>
        node.describe().meetings.some((meeting) => meeting.meetingId === meetingId),
      );
      expect(holders).toHaveLength(1);
    }
  });

  it('places new meetings on the least loaded node', async () => {
    current = cluster();
    const busy = await current.mediaNode('media-busy', 100);
    const api = await current.apiNode('api-1');
    await api.addParticipant('meeting-1', 'alice');
    await api.addParticipant('meeting-1', 'bob');
    const idle = await current.mediaNode('media-idle', 100);
    await api.addParticipant('meeting-2', 'carol');
    expect(idle.describe().meetings.map((meeting) => meeting.meetingId)).toEqual(['meeting-2']);
    expect(busy.describe().participants).toBe(2);
  });

  it('tells every API node who is talking, while only one of them tells the participants', async () => {
    current = cluster();
    const apis = await Promise.all([current.apiNode('api-1'), current.apiNode('api-2')]);
    const told: string[] = [];
    for (const api of apis) api.onEvent((event) => told.push(event.type));
    const redis = new Redis(redisUrl);
    const event = { type: 'talking', meetingId: 'meeting-t', userId: 'alice', talking: true };
    const text = JSON.stringify({ nodeId: 'media-x', event });
    await redis
      .multi()
      .rpush(`${current.prefix}media-events`, text)
      .publish(`${current.prefix}media-talking`, text)
      .exec();
    await vi.waitFor(() => {
      expect(apis.map((api) => api.talkingParticipants('meeting-t'))).toEqual([['alice'], ['alice']]);
      expect(told).toEqual(['talking']);
    });
    redis.disconnect();
  });

  it('a media node refuses a meeting another live node hosts, and the call goes to that node', async () => {
    current = cluster();
    const home = await current.mediaNode('media-home', 100);
    const other = await current.mediaNode('media-other', 100);
    const placer = await current.apiNode('api-1');
    await placer.addParticipant('meeting-r', 'alice');
    const holder = home.describe().meetings.length === 1 ? home : other;
    const stranger = holder === home ? other : home;
    // A database record naming the wrong node (as after a home wrongly taken for dead).
    const homes = new Map([['meeting-r', stranger.id]]);
    const coordination = {
      meetingMediaNode: async (meetingId: string) => homes.get(meetingId),
      async placeMeetingMedia(meetingId: string, nodeId: string, expected: string | null) {
        if ((homes.get(meetingId) ?? null) === expected) homes.set(meetingId, nodeId);
        return homes.get(meetingId);
      },
      async forgetMeetingMedia(meetingId: string, nodeId: string) {
        if (homes.get(meetingId) === nodeId) homes.delete(meetingId);
      },
      listMediaHomes: async () => [...new Set(homes.values())],
      listMeetingsOnMediaNode: async (nodeId: string) =>
        [...homes].filter(([, home]) => home === nodeId).map(([meetingId]) => meetingId),
    };
    const api = await current.apiNode('api-2', coordination);
    await api.addParticipant('meeting-r', 'bob');
    expect(holder.describe().meetings).toEqual([{ meetingId: 'meeting-r', participants: 2 }]);
    expect(stranger.describe().meetings).toEqual([]);
    expect(homes.get('meeting-r')).toBe(holder.id);
  });

  it('a media node whose registration Redis lost announces its meetings again', async () => {
    current = cluster();
    const node = await current.mediaNode('media-a', 100);
    const api = await current.apiNode('api-1');
    await api.addParticipant('meeting-l', 'alice');
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${current.prefix}*`);
    await redis.del(...keys);
    await vi.waitFor(async () => {
      expect(await redis.get(`${current?.prefix}meeting-media:meeting-l`)).toBe(node.id);
      expect(await redis.smembers(`${current?.prefix}media-node:media-a:meetings`)).toEqual(['meeting-l']);
      expect(await redis.smembers(`${current?.prefix}media-nodes`)).toEqual(['media-a']);
    });
    redis.disconnect();
  });

  it('a media node taken for dead closes the meetings it held', async () => {
    current = cluster();
    const node = await current.mediaNode('media-a', 100);
    const api = await current.apiNode('api-1');
    await api.addParticipant('meeting-d', 'alice');
    expect(node.describe().meetings).toHaveLength(1);
    const redis = new Redis(redisUrl);
    await redis.set(`${current.prefix}media-node:media-a:buried`, 'api-1');
    await vi.waitFor(() => expect(node.describe().meetings).toEqual([]));
    expect(await redis.exists(`${current.prefix}media-node:media-a:buried`)).toBe(0);
    redis.disconnect();
  });
});
