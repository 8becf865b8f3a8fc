// Cluster benchmark (run `pnpm build` first; needs the local PostgreSQL and Redis). From one run:
// 1. Join latency: a participant joins a meeting where someone is talking (POST join, audio offer,
//    the answer on /events, ICE, the first mixed audio packet), through an API node whose meetings'
//    media runs on a separate media node (over Redis), against the same on a server that hosts the
//    media itself (NODE_ROLES=api,media, the SFU on its own thread), both on the same PostgreSQL and
//    Redis, in alternating rounds. Target: cluster p50 at most 50 ms above the hosting node's.
// 2. Detection: after kill -9 of the API node holding a participant's /events socket, the time until
//    another participant hears MEETING_PARTICIPANT_LEFT; after kill -9 of the media node, the time
//    until MEETING_STOPPED. Target: within 30 s each (default heartbeat 2 s, dead after 5).
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startReferenceServer } from './lib/processes.mjs';
import { hs256Token } from './lib/token.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serverRequire = createRequire(path.join(root, 'packages/server/package.json'));
const { WebSocket } = serverRequire('ws');
const pg = serverRequire('pg');
const { AudioTestClient, waitFor } = await import(
  pathToFileURL(path.join(root, 'packages/webrtc-sfu/dist/testing.js')).href
);

const SECRET = 'bench-cluster-secret-of-at-least-32-bytes';
const ROUNDS = Number(process.env.BENCH_CLUSTER_ROUNDS ?? 6);
const PER_ROUND = 3;
const redisUrl = `${process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'}/12`;
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const loopback = { MEETING_ICE_HOST_ADDRESSES: '127.0.0.1', MEETING_ICE_ONLY_ADDRESSES: '127.0.0.1' };

const percentile = (values, fraction) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
};
const describe = (values) =>
  `p50 ${percentile(values, 0.5).toFixed(1)} ms, p95 ${percentile(values, 0.95).toFixed(1)} ms (n=${values.length})`;

async function databaseUrl() {
  const name = 'collab_bench_cluster';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A user on one API node: JSON calls and an /events socket whose messages can be awaited. */
async function user(baseUrl, userId = randomUUID()) {
  const authorization = `Bearer ${hs256Token(SECRET, userId)}`;
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/events`, { headers: { authorization } });
  const messages = [];
  const waiters = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.match(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  const next = (match, timeoutMs = 60_000) => {
    const found = messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no matching event')), timeoutMs);
      const settle = (message) => {
        clearTimeout(timer);
        resolve(message);
      };
      waiters.push({ match, resolve: settle });
    });
  };
  const connected = await next((message) => message.type === 'websocketConnected');
  const call = async (method, route, body, headers = {}) => {
    const response = await fetch(`${baseUrl}${route}`, {
      method,
      headers: { authorization, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${method} ${route}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  return { userId, queueId: connected.queueId, call, next, messages, close: () => socket.close() };
}

/**
 * Joins `meetingId` with audio; resolves once the audio connection is up and, when `untilHeard`,
 * once the first mixed audio packet arrived.
 */
async function joinWithAudio(person, meetingId, untilHeard) {
  const audio = new AudioTestClient();
  const from = person.messages.length;
  await person.call(
    'POST',
    `/meetings/${meetingId}/join`,
    { audioStreamEnabled: true, videoStreamEnabled: false },
    { 'queue-id': person.queueId },
  );
  await person.call('PUT', `/meetings/${meetingId}/audio/offer`, { sdp: await audio.createOffer() });
  const answered = await person.next(
    (message) => person.messages.indexOf(message) >= from && message.type === 'MEETING_AUDIO_ANSWERED',
  );
  await audio.acceptAnswer(answered.sdp);
  if (untilHeard) await waitFor(() => audio.received.length > 0, 'the first mixed audio packet', 30_000);
  else await waitFor(() => audio.peer.connectionState === 'connected', 'audio connected', 30_000);
  return audio;
}

/** A room with a started meeting where a speaker talks (through `speakerUrl`); the guest is a member. */
async function talkingMeeting(speakerUrl, guestId) {
  const speaker = await user(speakerUrl);
  const room = await speaker.call('POST', '/rooms', {
    type: 'group',
    name: 'Bench',
    membersIds: [guestId, randomUUID()],
  });
  const meeting = await speaker.call('POST', '/meetings', { roomId: room.id });
  await speaker.call('POST', `/meetings/${meeting.id}/start`);
  const voice = await joinWithAudio(speaker, meeting.id, false);
  await speaker.call('PUT', `/meetings/${meeting.id}/audio`, { enabled: true });
  voice.startTone(440);
  return { speaker, voice, meetingId: meeting.id };
}

/** One timed join of a fresh guest, through `url`, into a meeting where someone talks. */
async function timedJoin(url) {
  const guest = await user(url);
  const { speaker, voice, meetingId } = await talkingMeeting(url, guest.userId);
  const started = performance.now();
  const audio = await joinWithAudio(guest, meetingId, true);
  const elapsed = performance.now() - started;
  await speaker.call('DELETE', `/meetings/${meetingId}`);
  await Promise.all([audio.close(), voice.close()]);
  guest.close();
  speaker.close();
  return elapsed;
}

/** What every API node shares: the chat and SAML tables (one database) and the attachment folder. */
function apiShared(database) {
  return {
    CHAT_DATABASE_URL: database,
    SAML_DATABASE_URL: database,
    CHAT_BLOB_DIR: mkdtempSync(path.join(tmpdir(), 'bench-cluster-blobs-')),
  };
}

/** Milliseconds from kill -9 of an API node, then of the media node, until the survivors are told. */
async function detection(common, database) {
  const prefix = `bench-detect-${randomUUID()}:`;
  const env = { ...common, CLUSTER_REDIS_PREFIX: prefix };
  const api = { ...env, NODE_ROLES: 'api', ...apiShared(database) };
  const media = await startReferenceServer({ ...env, NODE_ROLES: 'media', NODE_ID: 'detect-media' });
  const [doomed, survivor] = await Promise.all([startReferenceServer(api), startReferenceServer(api)]);
  try {
    const leaver = await user(doomed.url);
    const { speaker, voice, meetingId } = await talkingMeeting(survivor.url, leaver.userId);
    const leaverAudio = await joinWithAudio(leaver, meetingId, true);
    const apiKilled = performance.now();
    await doomed.kill();
    await speaker.next(
      (message) => message.type === 'MEETING_PARTICIPANT_LEFT' && message.userId === leaver.userId,
    );
    const apiDetected = performance.now() - apiKilled;
    const mediaKilled = performance.now();
    await media.kill();
    await speaker.next((message) => message.type === 'MEETING_STOPPED' && message.meetingId === meetingId);
    const mediaDetected = performance.now() - mediaKilled;
    await Promise.all([voice.close(), leaverAudio.close()]);
    speaker.close();
    leaver.close();
    return { apiDetected, mediaDetected };
  } finally {
    await Promise.all([media.stop(), doomed.stop(), survivor.stop()]);
  }
}

async function main() {
  const database = await databaseUrl();
  const common = { ...loopback, AUTH_JWT_SECRET: SECRET, CHAT_REDIS_URL: redisUrl, LOG_LEVEL: 'warn' };
  const prefix = `bench-cluster-${randomUUID()}:`;
  const hosting = await startReferenceServer({ ...common, CHAT_DATABASE_URL: database });
  const media = await startReferenceServer({ ...common, NODE_ROLES: 'media', CLUSTER_REDIS_PREFIX: prefix });
  const api = await startReferenceServer({
    ...common,
    NODE_ROLES: 'api',
    ...apiShared(database),
    CLUSTER_REDIS_PREFIX: prefix,
  });
  try {
    for (let warm = 0; warm < 2; warm += 1) {
      await timedJoin(hosting.url);
      await timedJoin(api.url);
    }
    const onHost = [];
    const throughApi = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let index = 0; index < PER_ROUND; index += 1) onHost.push(await timedJoin(hosting.url));
      for (let index = 0; index < PER_ROUND; index += 1) throughApi.push(await timedJoin(api.url));
    }
    console.log('join until the first mixed audio packet (join, offer, answer on /events, ICE, mix):');
    console.log(`  on a node hosting the media itself (api,media):      ${describe(onHost)}`);
    console.log(`  through an API node, media on a media node (Redis): ${describe(throughApi)}`);
    const added = percentile(throughApi, 0.5) - percentile(onHost, 0.5);
    console.log(
      `  added at p50: ${added.toFixed(1)} ms (target <= 50 ms: ${added <= 50 ? 'meets' : 'MISSES'}); ratio ${(percentile(throughApi, 0.5) / percentile(onHost, 0.5)).toFixed(2)}`,
    );
  } finally {
    await Promise.all([hosting.stop(), media.stop(), api.stop()]);
  }
  const { apiDetected, mediaDetected } = await detection(common, database);
  console.log('detection with the default heartbeat (2 s; dead after 5 missed):');
  console.log(
    `  API node killed -9 -> MEETING_PARTICIPANT_LEFT at the others: ${(apiDetected / 1000).toFixed(1)} s`,
  );
  console.log(
    `  media node killed -9 -> MEETING_STOPPED at the participants: ${(mediaDetected / 1000).toFixed(1)} s`,
  );
  console.log(`  target within 30 s: ${Math.max(apiDetected, mediaDetected) <= 30_000 ? 'meets' : 'MISSES'}`);
}

await main();
