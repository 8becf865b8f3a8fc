// Chat with the XMPP mirror (run `pnpm build` first; needs ejabberd: `pnpm system-deps`).
// `pnpm bench -- chat-xmpp`. Part of the chat API benchmarks (see chat-api.mjs), in a file of its own
// because it starts a private ejabberd.
//   1. POST /rooms (a group of 3) on a reference server mirroring into ejabberd, against the same
//      server without XMPP, in alternating rounds; target: rps ratio >= 0.8 (the mirror only writes
//      an outbox row on the request path; ejabberd is driven in the background). Then how long the
//      mirror took to apply its backlog after the load.
//   2. Message round trip between two XMPP clients (TCP, @xmpp/client, TCP_NODELAY) in a room of 50
//      members (p50/p99: one client sends, the other receives), against the same in a room of 2;
//      then the room of 2 with Nagle's algorithm left on, as the clients did before (40 ms stalls).
//   3. Two servers on one PostgreSQL database (BENCH_DATABASE_URL's server; a database of the
//      bench's own, BENCH_CHAT_XMPP_DATABASE, dropped and created afresh): how long a room created
//      through the server that does not drain takes to appear in ejabberd (woken by NOTIFY), against
//      one created through the server that drains; the drainer's poll (1 s) is what it would be
//      without the notice.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadServer, median } from './lib/http-load.mjs';
import { startReferenceServer, unlimitedChatEnv } from './lib/processes.mjs';
import { hs256Token } from './lib/token.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECRET = 'bench-chat-secret-of-at-least-32-bytes';
const CONNECTIONS = 10;
const DURATION_SECONDS = 3;
const LOAD = { connections: CONNECTIONS, durationSeconds: DURATION_SECONDS };
const ROUNDS = 3;
const MESSAGES = 200;
const BIG_ROOM = 50;
const LAG_ROOMS = 40;
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const pg = createRequire(path.join(root, 'packages/server/package.json'))('pg');

const { startPrivateEjabberd } = await import(
  pathToFileURL(path.join(root, 'packages/chat-domain/dist/testing.js')).href
);
const { client: xmppClient, xml } = await import(
  pathToFileURL(path.join(root, 'packages/server/node_modules/@xmpp/client/index.js')).href
);

const percentile = (values, fraction) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
};

/** The mirror's outbox length, from `/health/` as an administrator. */
async function outboxOf(server) {
  const admin = hs256Token(SECRET, randomUUID(), { roles: ['admin'] });
  const health = await (
    await fetch(`${server.url}/health/`, { headers: { authorization: `Bearer ${admin}` } })
  ).json();
  return health.dependencies.find((dependency) => dependency.name === 'chat-xmpp')?.details?.outbox;
}

async function compareCreation(mirrored, plain, domain) {
  const userId = randomUUID();
  const headers = {
    authorization: `Bearer ${hs256Token(SECRET, userId, { jid: `${userId}@${domain}` })}`,
    'content-type': 'application/json',
  };
  const body = JSON.stringify({
    type: 'group',
    name: 'Bench',
    description: 'load',
    membersIds: [randomUUID(), randomUUID()],
  });
  const options = { method: 'POST', headers, body };
  const on = [];
  const off = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    on.push(await loadServer(mirrored, { ...options, url: `${mirrored.url}/rooms` }, LOAD));
    off.push(await loadServer(plain, { ...options, url: `${plain.url}/rooms` }, LOAD));
  }
  const ratios = on.map((result, index) => result.rps / off[index].rps);
  const medianOf = (results, key) => median(results.map((result) => result[key]));
  console.log(
    `POST /rooms: XMPP mirror on ${medianOf(on, 'rps').toFixed(0)} req/s, p99 ${medianOf(on, 'p99')} ms, ` +
      `${medianOf(on, 'cpuMicroseconds').toFixed(0)} us CPU/request | mirror off ${medianOf(off, 'rps').toFixed(0)} req/s, ` +
      `p99 ${medianOf(off, 'p99')} ms, ${medianOf(off, 'cpuMicroseconds').toFixed(0)} us CPU/request\n` +
      `  rps ratio on/off ${median(ratios).toFixed(2)} (median of rounds ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; target >= 0.8)`,
  );
  const started = Date.now();
  const backlog = await outboxOf(mirrored);
  for (;;) {
    const pending = await outboxOf(mirrored);
    if (pending === 0) break;
    if (Date.now() - started > 600_000)
      throw new Error(`the mirror still has ${pending} operations after 10 min`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  console.log(
    `  mirror backlog after the load: ${backlog} operations, applied in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

async function connect(ejabberd, userId, noDelay) {
  const token = hs256Token(SECRET, userId, { jid: `${userId}@${ejabberd.domain}` });
  const session = xmppClient({
    service: ejabberd.c2sUrl,
    domain: ejabberd.domain,
    resource: 'bench',
    credentials: (authenticate) => authenticate({ username: userId, password: token }, 'PLAIN'),
  });
  session.on('error', () => {});
  // Node's TCP sockets keep Nagle's algorithm on: a stanza written while an earlier one is not yet
  // acknowledged (the stream-management <a/> answering the server's <r/>) waits for the peer's
  // delayed ACK, 40 ms on Linux. ejabberd's listeners set TCP_NODELAY; the client must too.
  if (noDelay) session.on('connect', () => session.socket?.setNoDelay(true));
  await session.start();
  return session;
}

/**
 * Round trips of MESSAGES messages from one member to another in a room of `size` members; the
 * clients' sockets have TCP_NODELAY unless `noDelay` is false (Node's default, kept as a reference).
 */
async function roundTrips(server, ejabberd, size, noDelay = true) {
  const [sender, receiver] = [randomUUID(), randomUUID()];
  const others = Array.from({ length: size - 2 }, () => randomUUID());
  const token = hs256Token(SECRET, sender);
  const created = await fetch(`${server.url}/rooms`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      type: size === 2 ? 'temporary' : 'group',
      name: `Room of ${size}`,
      membersIds: [receiver, ...others],
    }),
  });
  const roomId = (await created.json()).id;
  const roomJid = `${roomId}@${ejabberd.mucDomain}`;
  for (;;) {
    const answer = await fetch(`${ejabberd.apiUrl}/get_room_affiliations`, {
      method: 'POST',
      body: JSON.stringify({ name: roomId, service: ejabberd.mucDomain }),
    });
    const affiliations = await answer.json();
    if (Array.isArray(affiliations) && affiliations.length === size) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const [from, to] = [await connect(ejabberd, sender, noDelay), await connect(ejabberd, receiver, noDelay)];
  const waiting = new Map();
  to.on('stanza', (stanza) => {
    if (stanza.name === 'message' && stanza.attrs.type === 'groupchat') waiting.get(stanza.attrs.id)?.();
  });
  const joined = (session, nick) =>
    new Promise((resolve) => {
      session.on('stanza', (stanza) => {
        if (stanza.name === 'presence' && stanza.attrs.from === `${roomJid}/${nick}`) resolve();
      });
      session.send(
        xml(
          'presence',
          { to: `${roomJid}/${nick}` },
          xml('x', { xmlns: 'http://jabber.org/protocol/muc' }, xml('history', { maxstanzas: '0' })),
        ),
      );
    });
  await Promise.all([joined(from, sender), joined(to, receiver)]);
  const times = [];
  for (let index = 0; index < MESSAGES; index += 1) {
    const id = `bench-${index}`;
    const arrived = new Promise((resolve) => waiting.set(id, resolve));
    const sent = performance.now();
    await from.send(
      xml('message', { to: roomJid, type: 'groupchat', id }, xml('body', {}, `message ${index}`)),
    );
    await arrived;
    times.push(performance.now() - sent);
    waiting.delete(id);
  }
  await Promise.all([from.stop(), to.stop()]);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

/** A fresh database for the two servers: the outbox and its lease are global to a database. */
async function freshDatabaseUrl() {
  const name = process.env.BENCH_CHAT_XMPP_DATABASE ?? 'collab_bench_chat_xmpp';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Milliseconds from `POST /rooms` (a group of 3) on `server` until ejabberd lists its 3 affiliations. */
async function mirrorLag(server, ejabberd) {
  const owner = randomUUID();
  const sent = performance.now();
  const created = await fetch(`${server.url}/rooms`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hs256Token(SECRET, owner)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'group', name: 'Lag', membersIds: [randomUUID(), randomUUID()] }),
  });
  const roomId = (await created.json()).id;
  for (;;) {
    const answer = await fetch(`${ejabberd.apiUrl}/get_room_affiliations`, {
      method: 'POST',
      body: JSON.stringify({ name: roomId, service: ejabberd.mucDomain }),
    });
    const affiliations = await answer.json();
    if (Array.isArray(affiliations) && affiliations.length === 3) return performance.now() - sent;
    if (performance.now() - sent > 30_000) throw new Error(`room ${roomId} not mirrored after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Part 3: two servers on one PostgreSQL database, rooms created alternately through each. */
async function compareAcrossProcesses(ejabberd, xmppEnvironment) {
  const databaseUrl = await freshDatabaseUrl();
  const database = new pg.Client({ connectionString: databaseUrl });
  const servers = [];
  try {
    const shared = { ...xmppEnvironment, CHAT_DATABASE_URL: databaseUrl };
    servers.push(await startReferenceServer({ ...shared, NODE_ID: 'bench-drainer' }));
    await database.connect();
    // Alone, the first server takes the lease; it keeps it while it polls.
    let drainerOwner;
    while (drainerOwner === undefined) {
      const lease = await database.query('SELECT owner FROM chat_mirror_lease').catch(() => ({ rows: [] }));
      drainerOwner = lease.rows[0]?.owner;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    servers.push(await startReferenceServer({ ...shared, NODE_ID: 'bench-other' }));
    const [drainer, other] = servers;
    await mirrorLag(drainer, ejabberd);
    await mirrorLag(other, ejabberd);
    // Each room starts on an idle drainer: one still busy with the previous room's messages would
    // pick the next room up without being woken, and hide what waking costs.
    const idle = async () => {
      for (;;) {
        const { rows } = await database.query('SELECT count(*) AS count FROM chat_mirror_outbox');
        if (Number(rows[0].count) === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const through = { drainer: [], other: [] };
    for (let index = 0; index < LAG_ROOMS; index += 1) {
      await idle();
      through.other.push(await mirrorLag(other, ejabberd));
      await idle();
      through.drainer.push(await mirrorLag(drainer, ejabberd));
    }
    const owner = (await database.query('SELECT owner FROM chat_mirror_lease')).rows[0]?.owner;
    if (owner !== drainerOwner) throw new Error(`the lease moved from ${drainerOwner} to ${owner}`);
    const line = (values) =>
      `p50 ${percentile(values, 0.5).toFixed(1)} ms, p99 ${percentile(values, 0.99).toFixed(1)} ms`;
    console.log(
      `room created -> in ejabberd, two servers on one PostgreSQL database, ${LAG_ROOMS} rooms each, one at a time:\n` +
        `  through the server that does not drain (woken by NOTIFY) ${line(through.other)} | ` +
        `through the draining server ${line(through.drainer)} | the drainer's poll: 1000 ms`,
    );
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await database.end().catch(() => {});
  }
}

async function main() {
  const ejabberd = await startPrivateEjabberd({ jwtSecret: SECRET });
  // One user creates every room: no creation rate limit, no cap on rooms per user.
  const xmppEnvironment = {
    ...unlimitedChatEnv,
    AUTH_JWT_SECRET: SECRET,
    LOG_LEVEL: 'error',
    CHAT_XMPP_URL: ejabberd.apiUrl,
    CHAT_XMPP_DOMAIN: ejabberd.domain,
    CHAT_XMPP_MUC_DOMAIN: ejabberd.mucDomain,
  };
  let mirrored;
  let plain;
  try {
    // `node bench/chat-xmpp.mjs across` runs part 3 alone, `round-trips` part 2 alone.
    const only = process.argv[2];
    if (only === 'across') {
      await compareAcrossProcesses(ejabberd, xmppEnvironment);
      return;
    }
    mirrored = await startReferenceServer(xmppEnvironment);
    if (only !== 'round-trips') {
      plain = await startReferenceServer({ ...unlimitedChatEnv, AUTH_JWT_SECRET: SECRET });
      console.log(
        `database: sqlite; ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION_SECONDS} s per side`,
      );
      await compareCreation(mirrored, plain, ejabberd.domain);
      await plain.stop();
      plain = undefined;
    }
    const small = await roundTrips(mirrored, ejabberd, 2);
    const big = await roundTrips(mirrored, ejabberd, BIG_ROOM);
    const nagle = await roundTrips(mirrored, ejabberd, 2, false);
    console.log(
      `message round trip, ${MESSAGES} messages one at a time: room of ${BIG_ROOM} p50 ${big.p50.toFixed(2)} ms, p99 ${big.p99.toFixed(2)} ms | ` +
        `room of 2 p50 ${small.p50.toFixed(2)} ms, p99 ${small.p99.toFixed(2)} ms\n` +
        `  p50 ratio ${(big.p50 / small.p50).toFixed(2)}, p99 ratio ${(big.p99 / small.p99).toFixed(2)} (${BIG_ROOM} members against 2)\n` +
        `  reference, room of 2 with Nagle's algorithm left on in the clients (Node's default): p50 ${nagle.p50.toFixed(2)} ms, p99 ${nagle.p99.toFixed(2)} ms`,
    );
    await mirrored.stop();
    mirrored = undefined;
    if (only !== 'round-trips') await compareAcrossProcesses(ejabberd, xmppEnvironment);
  } finally {
    await plain?.stop();
    await mirrored?.stop();
    await ejabberd.stop();
  }
}

await main();
