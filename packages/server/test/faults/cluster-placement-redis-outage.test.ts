import { type PrivateRedis, startPrivateRedis } from '@collab-suite/chat-domain/testing';
import { loopbackSfuOptions } from '@collab-suite/webrtc-sfu/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatErrorMapper } from '../../src/chat/error-status.js';
import {
  type ClusterMediaServer,
  createClusterMediaServer,
} from '../../src/meetings/media/cluster-media-server.js';
import { type MediaNode, startMediaNode } from '../../src/meetings/media/media-node.js';

const logger = pino({ level: 'silent' });
const prefix = 'collab-faults-placement:';

/**
 * An API node's placement of meetings on a media node, on a private Redis that is stopped: the call
 * must fail with 503 `dependency_unavailable` after one reconnection attempt or the Redis timeout,
 * not wait through ioredis's twenty retries or the media command's (here very long) timeout.
 */
describe('media placement while Redis is away', () => {
  let redis: PrivateRedis;
  let node: MediaNode;
  let api: ClusterMediaServer;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    node = await startMediaNode({
      redisUrl: redis.url,
      prefix,
      nodeId: 'media-only',
      address: '127.0.0.1',
      capacity: 10,
      sfuOptions: loopbackSfuOptions,
      heartbeatMs: 200,
      heartbeatTtlMs: 1000,
      logger,
    });
    api = await createClusterMediaServer({
      redisUrl: redis.url,
      prefix,
      apiNodeId: 'api-only',
      iceServers: [],
      // Longer than the test: only the Redis bound can end the call in time.
      commandTimeoutMs: 600_000,
      redisTimeoutMs: 500,
      watchMs: 200,
      logger,
    });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await node?.close();
    await redis?.stop();
  });

  it('answers dependency_unavailable with Retry-After, and places again once Redis is back', async () => {
    await api.addParticipant('meeting-p', 'alice');
    await redis.stop();
    const refused = await api.addParticipant('meeting-q', 'bob').catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'dependency_unavailable', details: { retryAfterSeconds: 2 } });
    const mapped = chatErrorMapper.map(refused as Error);
    expect(mapped.status).toBe(503);
    expect(mapped.headers).toEqual({ 'Retry-After': '2' });
    expect(await api.mediaNodes().catch((error: unknown) => error)).toBeInstanceOf(Error);

    await redis.start();
    // The media node registers again at its next heartbeat; until then no node can take it.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const placed = await api.addParticipant('meeting-q', 'bob').then(
        () => true,
        (error: unknown) => {
          if (Date.now() > deadline) throw error;
          return false;
        },
      );
      if (placed) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(
      node
        .describe()
        .meetings.map((meeting) => meeting.meetingId)
        .sort(),
    ).toEqual(['meeting-p', 'meeting-q']);
  }, 60_000);
});
