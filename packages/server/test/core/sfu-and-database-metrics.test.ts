import { randomUUID } from 'node:crypto';
import { waitFor } from '@collab-suite/webrtc-sfu/testing';
import { describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { forwardVideo, startMeetingWorld } from '../meetings/meeting-test-support.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { startTestServer, testJwtSecret } from '../support/test-server.js';

/** `/metrics` as an administrator: the value of every sample, by its name and labels. */
async function scrape(baseUrl: string): Promise<Map<string, number>> {
  const token = await signLocalToken(testJwtSecret, {
    userId: '00000000-0000-4000-8000-000000000001',
    admin: true,
  });
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    const match = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match?.[1] !== undefined) samples.set(match[1], Number(match[2]));
  }
  return samples;
}

describe('/metrics of the libraries', () => {
  it('reports the open, idle and waiting connections of the chat and SAML PostgreSQL pools', async () => {
    const url = await testDatabaseUrl('api_desc_metrics');
    const server = await startTestServer({ env: { CHAT_DATABASE_URL: url, SAML_DATABASE_URL: url } });
    try {
      const samples = await scrape(server.url);
      for (const database of ['chat', 'saml']) {
        const total = samples.get(`collab_database_pool_connections{database="${database}"}`);
        const idle = samples.get(`collab_database_pool_idle_connections{database="${database}"}`);
        expect(total).toBeGreaterThanOrEqual(1);
        expect(idle).toBeGreaterThanOrEqual(0);
        expect(idle).toBeLessThanOrEqual(total ?? 0);
        expect(samples.get(`collab_database_pool_waiting_requests{database="${database}"}`)).toBe(0);
      }
    } finally {
      await server.stop();
    }
  });

  it('serves the SFU series on a media node too, which has no API routes', async () => {
    const server = await startTestServer({
      env: {
        NODE_ROLES: 'media',
        CHAT_REDIS_URL: `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/6`,
        CLUSTER_REDIS_PREFIX: `api-desc-metrics-${randomUUID()}:`,
      },
    });
    try {
      const samples = await scrape(server.url);
      expect(samples.get('collab_sfu_sessions')).toBe(0);
      expect(samples.get('collab_sfu_forwarded_bytes_total{media="video"}')).toBe(0);
      expect(samples.get('collab_dependency_ready{dependency="media-node"}')).toBe(1);
      expect((await fetch(`${server.url}/openapi.json`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it("reports SFU sessions and the packets and bytes of a real meeting's forwarded video", async () => {
    const world = await startMeetingWorld('sqlite');
    const clients: { close(): Promise<void> }[] = [];
    try {
      const { alice, bob, meetingId, join } = world;
      const before = await scrape(world.server.url);
      expect(before.get('collab_sfu_sessions')).toBe(0);
      expect(before.get('collab_sfu_forwarded_packets_total{media="video"}')).toBe(0);
      // SQLite has no pool to report.
      expect([...before.keys()].some((name) => name.startsWith('collab_database_pool'))).toBe(false);

      await join(alice);
      await join(bob);
      const { publisher, subscriber, mid } = await forwardVideo(alice, bob, meetingId, 300_000);
      clients.push(publisher, subscriber);
      await waitFor(() => subscriber.count(mid) > 30, "alice's video at bob");

      // What bob has received so far; video keeps flowing, so the SFU has sent at least this by the scrape.
      const received = subscriber.packets.filter((entry) => entry.mid === mid);
      const receivedBytes = received.reduce((sum, entry) => sum + 12 + entry.packet.payload.length, 0);
      const samples = await scrape(world.server.url);
      expect(samples.get('collab_sfu_sessions')).toBe(2);
      expect(samples.get('collab_sfu_sessions_opened_total')).toBe(2);
      expect(samples.get('collab_sfu_published_streams')).toBe(1);
      expect(samples.get('collab_sfu_forwardings')).toBe(1);
      const packets = samples.get('collab_sfu_forwarded_packets_total{media="video"}') ?? 0;
      const bytes = samples.get('collab_sfu_forwarded_bytes_total{media="video"}') ?? 0;
      expect(packets).toBeGreaterThanOrEqual(received.length);
      expect(bytes).toBeGreaterThanOrEqual(receivedBytes);
      expect(samples.get('collab_sfu_received_video_packets_total')).toBeGreaterThanOrEqual(packets);
      expect(samples.get('collab_sfu_received_video_bytes_total')).toBeGreaterThan(0);
      // A werift publisher repeats no packet.
      expect(samples.get('collab_sfu_repeated_video_packets_total')).toBe(0);
      expect(samples.get('collab_sfu_forwarded_packets_total{media="audio"}')).toBe(0);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await world.close();
    }
  });
});
