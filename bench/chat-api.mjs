// Chat API benchmark (run `pnpm build` first; `pnpm bench -- chat-api`).
// Requests per second and p99 latency through the real server (SQLite by default, or the database
// in BENCH_CHAT_DATABASE_URL) of:
//   1. GET /rooms?extraFields=members for a user in 200 rooms of 20 members (about 250 KB of JSON);
//   2. POST /rooms creating a group of 3;
// each divided by bare Express answering the same JSON (an object of the same size, serialised per
// request; the POST reference also parses the JSON body). Target: rps ratio >= 0.5 on SQLite.
// On SQLite a third line gives the floor of a durable creation: bare Express that writes the room
// with chat-domain's SQLite store and nothing else, against the same bare reference.
// Each line also gives the CPU per request of each server process (from /proc, all its threads:
// the SQLite store's writer thread included): its own work, which load elsewhere on the machine
// barely moves. With the writes on a thread of their own, a server can use more than one core, so
// the rps ratio can now pass the CPU ratio.
// The load tool is autocannon, the same for both sides, in this process; servers are child processes.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadServer, median } from './lib/http-load.mjs';
import { startListeningProcess, startReferenceServer, unlimitedChatEnv } from './lib/processes.mjs';
import { hs256Token } from './lib/token.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOMS = 200;
const MEMBERS_PER_ROOM = 20;
const CONNECTIONS = 10;
const DURATION_SECONDS = 3;
const LOAD = { connections: CONNECTIONS, durationSeconds: DURATION_SECONDS };
const ROUNDS = 3;
const SECRET = 'bench-chat-secret-of-at-least-32-bytes';

if (process.argv[2] === '--bare-server') {
  await runBareServer(process.argv[3]);
} else if (process.argv[2] === '--bare-store-server') {
  await runBareStoreServer(process.argv[3], process.argv[4]);
} else {
  await main();
}

/** The reference: bare Express answering fixed JSON objects read from `payloadFile`. */
async function runBareServer(payloadFile) {
  const express = createRequire(path.join(root, 'packages/server/package.json'))('express');
  const { list, created } = JSON.parse(readFileSync(payloadFile, 'utf8'));
  const app = express();
  app.get('/rooms', (_request, response) => response.json(list));
  app.post('/rooms', express.json(), (_request, response) => response.status(201).json(created));
  const server = app.listen(0, '127.0.0.1', () =>
    console.log(JSON.stringify({ msg: 'server listening', port: server.address().port })),
  );
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

/**
 * The floor of a durable POST /rooms on SQLite: bare Express that writes the room and its members
 * with chat-domain's own SQLite store (same schema, same transaction, same writer thread, same
 * version 7 room ids) and answers the fixed JSON.
 * No authentication, validation or events: only what no server creating a room can skip.
 */
async function runBareStoreServer(payloadFile, databaseFile) {
  const express = createRequire(path.join(root, 'packages/server/package.json'))('express');
  const { timeOrderedUuid } = await import(
    pathToFileURL(path.join(root, 'packages/chat-domain/dist/index.js')).href
  );
  const { createSqliteChatStore } = await import(
    pathToFileURL(path.join(root, 'packages/chat-domain/dist/sqlite.js')).href
  );
  const store = createSqliteChatStore({ filename: databaseFile });
  const { created } = JSON.parse(readFileSync(payloadFile, 'utf8'));
  const app = express();
  app.post('/rooms', express.json(), async (request, response) => {
    const now = new Date();
    const room = {
      id: timeOrderedUuid(),
      type: 'group',
      name: request.body.name,
      description: request.body.description,
      meetingId: null,
      createdAt: now,
      updatedAt: now,
      pictureUpdatedAt: null,
    };
    const creator = created.members[0].userId;
    const members = [creator, ...request.body.membersIds].map((userId, index) => ({
      userId,
      owner: index === 0,
      joinedAt: now,
    }));
    await store.insertRoom(room, members);
    response.status(201).json(created);
  });
  const server = app.listen(0, '127.0.0.1', () =>
    console.log(JSON.stringify({ msg: 'server listening', port: server.address().port })),
  );
  process.on('SIGTERM', () => server.close(() => store.close().then(() => process.exit(0))));
}

// A declaration, hoisted: main() runs from the top of the module, before later constants exist.
function token(userId) {
  return hs256Token(SECRET, userId);
}

async function call(url, method, userId, body) {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token(userId)}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (response.status >= 300)
    throw new Error(`${method} ${url} answered ${response.status}: ${await response.text()}`);
  return response.text();
}

/** Puts `userId` in ROOMS rooms of MEMBERS_PER_ROOM members, 8 creations at a time. */
async function seed(url, userId) {
  let next = 0;
  const worker = async () => {
    while (next < ROOMS) {
      next += 1;
      const membersIds = Array.from({ length: MEMBERS_PER_ROOM - 1 }, () => randomUUID());
      await call(`${url}/rooms`, 'POST', userId, {
        type: 'group',
        name: `Room ${next}`,
        description: 'bench',
        membersIds,
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/**
 * Alternates ROUNDS runs against `ours` and `bare` ({ url, pid }), so load from elsewhere on the
 * machine hits both alike. Also prints each server's CPU per request: its own work, which other
 * load on the machine barely moves (the rps ratio tends to it when the server is the bottleneck).
 */
async function compare(name, ours, bare, options, side = 'ours') {
  const oursResults = [];
  const bareResults = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    oursResults.push(await loadServer(ours, { ...options, url: `${ours.url}${options.path}` }, LOAD));
    bareResults.push(await loadServer(bare, { ...options, url: `${bare.url}${options.path}` }, LOAD));
  }
  const ratios = oursResults.map((result, index) => result.rps / bareResults[index].rps);
  const medianOf = (results, key) => median(results.map((result) => result[key]));
  const cpuRatio = medianOf(bareResults, 'cpuMicroseconds') / medianOf(oursResults, 'cpuMicroseconds');
  console.log(
    `${name}: ${side} ${medianOf(oursResults, 'rps').toFixed(0)} req/s, p99 ${medianOf(oursResults, 'p99')} ms, ` +
      `${medianOf(oursResults, 'cpuMicroseconds').toFixed(0)} us CPU/request | bare Express ${medianOf(bareResults, 'rps').toFixed(0)} req/s, ` +
      `p99 ${medianOf(bareResults, 'p99')} ms, ${medianOf(bareResults, 'cpuMicroseconds').toFixed(0)} us CPU/request\n` +
      `  rps ratio ${median(ratios).toFixed(2)} (median of rounds ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; target >= 0.5); ` +
      `CPU ratio bare/ours ${cpuRatio.toFixed(2)}; p99 ratio ${(medianOf(bareResults, 'p99') / Math.max(medianOf(oursResults, 'p99'), 1)).toFixed(2)}`,
  );
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-chat-'));
  const databaseUrl = process.env.BENCH_CHAT_DATABASE_URL;
  const server = await startReferenceServer({
    ...unlimitedChatEnv,
    AUTH_JWT_SECRET: SECRET,
    ...(databaseUrl ? { CHAT_DATABASE_URL: databaseUrl } : {}),
  });
  let bare;
  let floor;
  try {
    const userId = randomUUID();
    await seed(server.url, userId);
    const headers = { authorization: `Bearer ${token(userId)}`, 'content-type': 'application/json' };
    const listUrl = '/rooms?extraFields=members';
    const list = JSON.parse(await call(`${server.url}${listUrl}`, 'GET', userId));
    if (list.length !== ROOMS || list.some((room) => room.members.length !== MEMBERS_PER_ROOM)) {
      throw new Error('seeding did not produce 200 rooms of 20 members');
    }
    const createBody = JSON.stringify({
      type: 'group',
      name: 'Bench',
      description: 'load',
      membersIds: [randomUUID(), randomUUID()],
    });
    const created = JSON.parse(await call(`${server.url}/rooms`, 'POST', userId, JSON.parse(createBody)));
    const payloadFile = path.join(dataDir, 'bare-payload.json');
    writeFileSync(payloadFile, JSON.stringify({ list, created }));
    bare = await startListeningProcess([fileURLToPath(import.meta.url), '--bare-server', payloadFile], {});

    console.log(
      `database: ${databaseUrl ? 'postgresql' : 'sqlite'}; ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION_SECONDS} s per side`,
    );
    console.log(`GET ${listUrl}: ${JSON.stringify(list).length} bytes per response`);
    await compare(`GET ${listUrl}`, server, bare, { path: listUrl, headers });
    const post = { method: 'POST', headers, body: createBody, path: '/rooms' };
    await compare('POST /rooms', server, bare, post);
    if (!databaseUrl) {
      // What a durable room creation costs at least: bare Express plus the store's own write.
      floor = await startListeningProcess([
        fileURLToPath(import.meta.url),
        '--bare-store-server',
        payloadFile,
        path.join(dataDir, 'floor.db'),
      ]);
      await compare('POST /rooms, floor', floor, bare, post, 'bare Express + SQLite store');
    }
  } finally {
    await floor?.stop();
    await bare?.stop();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
