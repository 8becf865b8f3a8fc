// Chaos benchmark (run `pnpm build` first): a bounded random schedule of infrastructure faults
// against a steady load and meetings, on engines of its own (a PostgreSQL made by initdb in a temp
// folder, a Redis with an append-only file), two API nodes and two media nodes.
//   node bench/chaos.mjs [minutes]      (default 10; BENCH_CHAOS_SEED picks the schedule)
// Faults: PostgreSQL fast restarts and kills, Redis kills with and without its data, SIGSTOP past
// the dead threshold and SIGKILL of API and media nodes. It prints acknowledged/present/lost writes,
// events raised/delivered/resynced/lost, split meetings, ghost participants, unplanned process
// deaths and the worst recovery time after a dependency or node came back. Target for 10 minutes:
// 0 lost, 0 split, 0 ghosts, 0 unplanned deaths, recovery <= 2 s.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hs256Token } from './lib/token.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serverRequire = createRequire(path.join(root, 'packages/server/package.json'));
const { WebSocket } = serverRequire('ws');
const pg = serverRequire('pg');
const load = (relative) => import(pathToFileURL(path.join(root, relative)).href);
const { startPrivatePostgres, startPrivateRedis, freeLoopbackPort } = await load(
  'packages/chat-domain/dist/testing.js',
);
const { AudioTestClient } = await load('packages/webrtc-sfu/dist/testing.js');

const minutes = Number(process.argv[2] ?? process.env.BENCH_CHAOS_MINUTES ?? 10);
const secret = 'bench-chaos-secret-of-at-least-32-bytes!';
const heartbeatMs = 500;
const mainScript = path.join(root, 'packages/server/dist/main.js');
let seed = Number(process.env.BENCH_CHAOS_SEED ?? 20261127);
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
const pick = (items) => items[Math.floor(random() * items.length)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (...parts) => console.log(`[${((performance.now() - startedAt) / 1000).toFixed(1)} s]`, ...parts);
const startedAt = performance.now();

// ---------------------------------------------------------------- clean-up on Ctrl-C
/** Every node process started (replacements too), and the engines once they run. */
const everyNode = new Set();
const engines = { postgres: undefined, redis: undefined };
let cleaning;
/** Kills every node (a frozen one is let run first) and stops both engines, removing their folders. */
function cleanUp() {
  cleaning ??= (async () => {
    for (const node of everyNode) {
      node.planned = true;
      if (node.child.exitCode !== null || node.child.signalCode !== null) continue;
      node.child.kill('SIGCONT');
      node.child.kill('SIGKILL');
    }
    await engines.redis?.stop().catch((error) => console.error('could not stop Redis:', error));
    await engines.postgres?.destroy().catch((error) => console.error('could not stop PostgreSQL:', error));
  })();
  return cleaning;
}
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
]) {
  process.once(signal, () => {
    console.log(`\n${signal}: killing the nodes and stopping the private PostgreSQL and Redis`);
    cleanUp().finally(() => process.exit(code));
  });
}

// ---------------------------------------------------------------- engines and nodes
const postgres = await startPrivatePostgres();
engines.postgres = postgres;
const redis = await startPrivateRedis({ appendOnly: true });
engines.redis = redis;
const admin = new pg.Client({ connectionString: postgres.url });
await admin.connect();
await admin.query('CREATE DATABASE chaos_chat');
await admin.query('CREATE DATABASE chaos_saml');
await admin.end();
const databaseUrl = (name) => postgres.url.replace(/\/postgres$/, `/${name}`);
const blobDir = mkdtempSync(path.join(tmpdir(), 'chaos-blobs-'));

const unplannedDeaths = [];
/** A server process; `planned` marks the exits the schedule causes. */
async function startNode(name, roles) {
  const port = await freeLoopbackPort();
  const child = spawn(process.execPath, [mainScript], {
    env: {
      PATH: process.env.PATH,
      NODE_ROLES: roles,
      NODE_ID: name,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), `chaos-${name}-`)),
      CHAT_DATABASE_URL: databaseUrl('chaos_chat'),
      SAML_DATABASE_URL: databaseUrl('chaos_saml'),
      CHAT_REDIS_URL: redis.url,
      CHAT_BLOB_DIR: blobDir,
      AUTH_JWT_SECRET: secret,
      CLUSTER_HEARTBEAT_MS: String(heartbeatMs),
      MEETING_ICE_HOST_ADDRESSES: '127.0.0.1',
      MEETING_ICE_ONLY_ADDRESSES: '127.0.0.1',
      DOCUMENT_CONVERTER: 'none',
      CHAT_ROOM_CREATIONS_PER_MINUTE: '100000',
      // Twelve users are in tens of thousands of rooms by the end of a run.
      CHAT_MAX_ROOMS_PER_USER: '100000000',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const node = { name, roles, child, planned: false, url: `http://127.0.0.1:${port}`, stderr: '' };
  everyNode.add(node);
  child.stderr.on('data', (chunk) => {
    node.stderr = (node.stderr + chunk).slice(-4000);
  });
  child.once('exit', (code, signal) => {
    if (!node.planned) {
      unplannedDeaths.push({ name, code, signal, stderr: node.stderr.slice(-600) });
      log(`UNPLANNED EXIT of ${name}: code ${code} signal ${signal}`);
    }
  });
  for (let tries = 0; ; tries += 1) {
    const live = await fetch(`${node.url}/health/live/`).catch(() => undefined);
    if (live?.status === 200) break;
    if (tries > 600 || child.exitCode !== null) throw new Error(`${name} did not start: ${node.stderr}`);
    await sleep(100);
  }
  return node;
}

const apiNodes = [await startNode('api-1', 'api'), await startNode('api-2', 'api')];
const mediaNodes = [await startNode('media-1', 'media'), await startNode('media-2', 'media')];
const liveApi = () => apiNodes.filter((node) => node.child.exitCode === null && !node.stopped);
const adminToken = hs256Token(secret, randomUUID(), { roles: ['admin'] });

// ---------------------------------------------------------------- load: users, writes, events
const failures = new Map();
const counts = { acknowledged: 0, refused503: 0, otherFailures: 0, raised: 0, delivered: 0, resynced: 0 };
const acknowledgedRooms = new Map(); // roomId -> members
const expectedEvents = new Map(); // `${userId}/${roomId}` -> acknowledged at (ms)
const users = new Map();

/** A user with an /events socket that reconnects (to any live API node) whenever it closes. */
function connectUser(userId) {
  const person = users.get(userId) ?? {
    userId,
    socket: undefined,
    queueId: undefined,
    resyncs: [],
    seen: new Set(),
  };
  users.set(userId, person);
  const node = pick(liveApi());
  if (!node) return setTimeout(() => connectUser(userId), 500);
  const socket = new WebSocket(`${node.url.replace('http', 'ws')}/events`, {
    headers: { authorization: `Bearer ${hs256Token(secret, userId)}` },
  });
  person.socket = socket;
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    if (message.type === 'websocketConnected') person.queueId = message.queueId;
    if (message.type === 'resync') person.resyncs.push(performance.now());
    if (message.type === 'ROOM_CREATED' && message.roomId) person.seen.add(message.roomId);
  });
  socket.on('error', () => {});
  socket.once('close', () => {
    if (!stopping) person.resyncs.push(performance.now());
    person.queueId = undefined;
    if (!stopping) setTimeout(() => connectUser(userId), 200);
  });
  return person;
}

async function call(method, route, userId, body, headers = {}) {
  const node = pick(liveApi());
  if (!node) return { status: 0 };
  try {
    const response = await fetch(`${node.url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${hs256Token(secret, userId)}`,
        'content-type': 'application/json',
        ...headers,
      },
      signal: AbortSignal.timeout(10_000),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text,
    };
  } catch (error) {
    return { status: 0, error };
  }
}

const people = Array.from({ length: 12 }, () => randomUUID());
for (const userId of people) connectUser(userId);

let stopping = false;
async function writer() {
  while (!stopping) {
    const owner = pick(people);
    const others = people.filter((userId) => userId !== owner);
    const membersIds = [pick(others), pick(others)].filter(
      (value, index, all) => all.indexOf(value) === index,
    );
    if (membersIds.length < 2) continue;
    const answer = await call('POST', '/rooms', owner, { type: 'group', name: 'Chaos', membersIds });
    if (answer.status === 200 || answer.status === 201) {
      counts.acknowledged += 1;
      const members = [owner, ...membersIds];
      acknowledgedRooms.set(answer.body.id, members);
      for (const userId of members) expectedEvents.set(`${userId}/${answer.body.id}`, performance.now());
      counts.raised += members.length;
    } else if (answer.status === 503) counts.refused503 += 1;
    else {
      counts.otherFailures += 1;
      const status = answer.status === 0 ? 'no answer (node down or frozen)' : String(answer.status);
      failures.set(status, (failures.get(status) ?? 0) + 1);
    }
    await sleep(answer.status === 503 ? 200 : 50);
  }
}

// ---------------------------------------------------------------- meetings
const meetings = [];
async function startMeeting() {
  const [owner, second, third] = [pick(people), randomUUID(), randomUUID()];
  for (const userId of [second, third]) connectUser(userId);
  const room = await call('POST', '/rooms', owner, {
    type: 'group',
    name: 'Meeting',
    membersIds: [second, third],
  });
  const meeting = await call('POST', '/meetings', owner, { roomId: room.body.id, name: 'Chaos' });
  await call('POST', `/meetings/${meeting.body.id}/start`, owner);
  meetings.push({ id: meeting.body.id, owner, participants: [second, third], audio: new Map() });
}

/** Keeps each participant joined with audio: rejoins after its socket was closed or it was dropped. */
async function keepJoined() {
  while (!stopping) {
    for (const meeting of meetings) {
      // Who the server has in the meeting now: a stopped meeting or a dropped session is rejoined.
      const state = await call('GET', `/meetings/${meeting.id}`, meeting.owner);
      if (state.status !== 200) continue;
      const inMeeting = new Set(
        (state.body.participants ?? []).map((entry) => `${entry.userId} ${entry.queueId}`),
      );
      for (const userId of meeting.participants) {
        const person = users.get(userId);
        const joinedQueue = meeting.audio.get(userId)?.queueId;
        if (!person?.queueId) continue;
        if (joinedQueue === person.queueId && inMeeting.has(`${userId} ${person.queueId}`)) continue;
        meeting.audio
          .get(userId)
          ?.client.close()
          .catch(() => {});
        meeting.audio.delete(userId);
        const joined = await call(
          'POST',
          `/meetings/${meeting.id}/join`,
          userId,
          { audioStreamEnabled: true, videoStreamEnabled: false },
          {
            'queue-id': person.queueId,
          },
        );
        if (joined.status === 409 && joined.body?.code === 'meeting_not_active') {
          // Its media node died and the meeting was stopped: its owner starts it again.
          meeting.restarts = (meeting.restarts ?? 0) + 1;
          await call('POST', `/meetings/${meeting.id}/start`, meeting.owner);
          continue;
        }
        if (joined.status !== 200 && joined.status !== 409) continue;
        const client = new AudioTestClient();
        const offered = await call('PUT', `/meetings/${meeting.id}/audio/offer`, userId, {
          sdp: await client.createOffer(),
        });
        if (offered.status !== 204) {
          await client.close();
          continue;
        }
        meeting.audio.set(userId, { queueId: person.queueId, client });
      }
    }
    await sleep(500);
  }
}

// ---------------------------------------------------------------- faults
const recoveries = [];
/** Time from `since` until a write succeeds through every live API node. */
async function measureRecovery(label, since) {
  // Every API node counts: one that died never recovers, and the measurement says so.
  const pending = new Set(apiNodes.map((node) => node.name));
  while (pending.size > 0 && performance.now() - since < 60_000) {
    for (const node of apiNodes.filter((candidate) => pending.has(candidate.name))) {
      const owner = randomUUID();
      const response = await fetch(`${node.url}/rooms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hs256Token(secret, owner)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'group', name: 'Probe', membersIds: [randomUUID(), randomUUID()] }),
        signal: AbortSignal.timeout(5_000),
      }).catch(() => undefined);
      if (response?.status === 200 || response?.status === 201) pending.delete(node.name);
    }
    if (pending.size > 0) await sleep(100);
  }
  const seconds = (performance.now() - since) / 1000;
  recoveries.push({ label, seconds, complete: pending.size === 0 });
  log(
    `${label}: writes through every API node ${pending.size === 0 ? 'again' : 'NOT'} after ${seconds.toFixed(2)} s`,
  );
}

async function replaceNode(node) {
  node.planned = true;
  const replacement = await startNode(node.name, node.roles);
  const list = node.roles === 'api' ? apiNodes : mediaNodes;
  list[list.indexOf(node)] = replacement;
  return replacement;
}

const faults = {
  async postgresRestart() {
    await postgres.restart();
    return 'PostgreSQL fast restart';
  },
  async postgresKill() {
    await postgres.stop('kill');
    await sleep(3_000 + random() * 5_000);
    await postgres.start();
    return 'PostgreSQL killed';
  },
  async redisKillKept() {
    await redis.stop();
    await sleep(2_000 + random() * 6_000);
    await redis.start();
    return 'Redis killed (AOF kept)';
  },
  async redisRestartEmpty() {
    await redis.restart({ empty: true });
    return 'Redis restarted empty';
  },
  async apiFreeze() {
    const node = pick(liveApi());
    node.child.kill('SIGSTOP');
    await sleep(heartbeatMs * 5 + 3_000);
    node.child.kill('SIGCONT');
    return `${node.name} frozen`;
  },
  async apiKill() {
    const node = pick(liveApi());
    node.planned = true;
    node.child.kill('SIGKILL');
    await replaceNode(node);
    return `${node.name} killed and restarted`;
  },
  async mediaKill() {
    const node = pick(mediaNodes);
    node.planned = true;
    node.child.kill('SIGKILL');
    await replaceNode(node);
    return `${node.name} killed and restarted`;
  },
  async mediaFreeze() {
    const node = pick(mediaNodes);
    node.child.kill('SIGSTOP');
    await sleep(heartbeatMs * 5 + 3_000);
    node.child.kill('SIGCONT');
    return `${node.name} frozen`;
  },
};

// ---------------------------------------------------------------- the run
for (let index = 0; index < 3; index += 1) await startMeeting();
const writers = Array.from({ length: 5 }, () => writer());
const joiner = keepJoined();
const deadline = performance.now() + minutes * 60_000;
const applied = [];
while (performance.now() < deadline) {
  await sleep(10_000 + random() * 15_000);
  if (performance.now() >= deadline) break;
  const name = pick(Object.keys(faults));
  log(`fault: ${name}`);
  const label = await faults[name]();
  applied.push(label);
  await measureRecovery(label, performance.now());
}

// Settle: faults over, let reconnections and rejoins finish.
log('settling');
await sleep(heartbeatMs * 10 + 10_000);
stopping = true;
await Promise.all([...writers, joiner]);

// ---------------------------------------------------------------- results
const check = new pg.Client({ connectionString: databaseUrl('chaos_chat') });
await check.connect();
const roomIds = [...acknowledgedRooms.keys()];
const present = await check.query('SELECT id FROM chat_rooms WHERE id = ANY($1::uuid[])', [roomIds]);
// An event not delivered counts as resynced when its user was told to refetch (a `resync` frame, or
// a closed socket the client reopened) after the write was acknowledged.
for (const [key, acknowledgedAt] of expectedEvents) {
  const [userId, roomId] = key.split('/');
  const person = users.get(userId);
  if (person?.seen.has(roomId)) counts.delivered += 1;
  else if (person?.resyncs.some((at) => at >= acknowledgedAt - 2_000)) counts.resynced += 1;
}
// A meeting is split when more than one media node holds a router for it.
let split = 0;
const hosts = new Map();
for (const node of mediaNodes) {
  const health = await fetch(`${node.url}/health/`, { headers: { authorization: `Bearer ${adminToken}` } })
    .then((response) => response.json())
    .catch(() => ({ dependencies: [] }));
  for (const dependency of health.dependencies ?? []) {
    for (const meeting of dependency.details?.meetings ?? []) {
      if (meeting.participants > 0)
        hosts.set(meeting.meetingId, [...(hosts.get(meeting.meetingId) ?? []), node.name]);
    }
  }
}
for (const [, nodes] of hosts) if (nodes.length > 1) split += 1;
if (process.env.BENCH_CHAOS_DEBUG) {
  const health = await fetch(`${mediaNodes[0].url}/health/`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  console.log('media node health:', health.status, JSON.stringify(await health.json()).slice(0, 1500));
}
let ghosts = 0;
for (const meeting of meetings) {
  const rows = await check.query(
    'SELECT user_id, queue_id FROM chat_meeting_participants WHERE meeting_id = $1',
    [meeting.id],
  );
  for (const row of rows.rows) {
    const person = users.get(row.user_id);
    if (!person || person.queueId !== row.queue_id) ghosts += 1;
  }
}
await check.end();

console.log('\nchaos run:', minutes, 'minutes, seed', process.env.BENCH_CHAOS_SEED ?? 20261127);
console.log('faults applied:', applied.length, applied.join('; '));
console.log(
  `writes: acknowledged ${counts.acknowledged}, present ${present.rowCount}, lost ${counts.acknowledged - present.rowCount}` +
    ` (refused 503 ${counts.refused503}, other failures ${counts.otherFailures}: ${[...failures].map(([status, count]) => `${status} ${count}`).join(', ')})`,
);
console.log(
  `events: raised ${counts.raised}, delivered ${counts.delivered}, resynced ${counts.resynced},` +
    ` lost silently ${counts.raised - counts.delivered - counts.resynced}`,
);
console.log(
  `meetings: split ${split} (hosts seen for ${hosts.size} of ${meetings.length}), ghost participants ${ghosts},` +
    ` restarted after their media node died ${meetings.reduce((sum, meeting) => sum + (meeting.restarts ?? 0), 0)}`,
);
console.log(
  `unplanned process deaths: ${unplannedDeaths.length}`,
  unplannedDeaths.map((death) => `${death.name} (${death.code ?? death.signal})`).join(', '),
);
const worst = recoveries.reduce((max, entry) => Math.max(max, entry.seconds), 0);
console.log(
  `worst recovery: ${worst.toFixed(2)} s after ${recoveries.find((entry) => entry.seconds === worst)?.label ?? '-'}; incomplete: ${recoveries.filter((entry) => !entry.complete).length}`,
);

for (const user of users.values()) user.socket?.close();
for (const meeting of meetings)
  for (const entry of meeting.audio.values()) await entry.client.close().catch(() => {});
await cleanUp();
process.exit(0);
