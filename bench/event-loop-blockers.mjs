// Event-loop blockers (run `pnpm build` first; `pnpm bench -- event-loop-blockers`).
// How long the non-PDF work of the server holds the Node event loop with inputs at the default
// limits, measured in this process against the built packages with a 1 ms interval probe
// (lib/event-loop-probe.mjs). Per case and round: the longest stall (the longest gap between two
// probe ticks) and the work's duration. Target: no stall over 20 ms. The reference is the probe's
// own longest gap while the process idles for a second in the same run: the machine's floor.
//   SAML (1 MiB, SAML_MAX_DOCUMENT_BYTES): through the service, import of federation metadata
//     (hundreds of IdPs), validation of one IdP listing hundreds of distinct certificates, and
//     certificate generation with a 4096-bit RSA key; through the server's routes, the same import
//     and a JSON map of 25 000 unknown keys sent to POST /saml-validate and PUT /saml/{domain}.
//   Office documents (50 MB, the preview's maxInputBytes): detectDocumentType of an xlsx of thousands
//     of parts, of an xlsx with one part of ~280 MB, of a 50 MB xls, and of an OLE file whose root
//     holds 100 000 entries.
//   Chat: GET /rooms?extraFields=members,settings through the real server on SQLite, for a user in
//     500 rooms of 20 and of 128 members (CHAT_MAX_ROOM_MEMBERS), and 10 000 rooms of 3 (the
//     CHAT_MAX_ROOMS_PER_USER cap): the first listing after a start
//     (member lists read from SQLite) and the next ones (member lists cached).
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  federationMetadata,
  manyCertificatesMetadata,
  manyEntriesXlsx,
  manyKeysJson,
  oneLargeEntryXlsx,
} from './lib/event-loop-fixtures.mjs';
import { idleFloor, measureStalls } from './lib/event-loop-probe.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const load = (relative) => import(pathToFileURL(path.join(root, relative)).href);
const ROUNDS = 3;
const TARGET_MS = 20;
const MIB = 1024 * 1024;
const SECRET = 'bench-event-loop-secret-of-at-least-32-bytes';

const saml = await load('packages/saml-config/dist/index.js');
const preview = await load('packages/preview-core/dist/index.js');
const previewTesting = await load('packages/preview-core/dist/testing/index.js');
const server = await load('packages/server/dist/index.js');

/** Runs `work` ROUNDS times under the probe and prints each round. */
async function report(name, work) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round += 1) rounds.push(await measureStalls(work));
  const longest = Math.max(...rounds.map((round) => round.longestStallMs));
  const verdict = longest > TARGET_MS ? 'OVER' : 'ok';
  console.log(
    `${name}: longest stall ${longest.toFixed(1)} ms (${verdict}; rounds ${rounds
      .map((round) => `${round.longestStallMs.toFixed(1)} ms of ${round.durationMs.toFixed(0)} ms`)
      .join(', ')})`,
  );
  await settle();
}

/** Lets the collector run between cases, so one case's garbage is not collected in the next one's rounds. */
async function settle() {
  globalThis.gc?.();
  await new Promise((resolve) => setImmediate(resolve));
}

async function samlCases() {
  const now = () => new Date();
  const service = saml.createSamlConfigService({ store: saml.createMemorySamlPropertyStore(), now });
  const generated = await saml.generateCertificate(
    'idp.example',
    { days: 365, digest: 'SHA-256', keyBits: 2048 },
    now(),
  );
  const certificate = generated.certificatePem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  const federation = federationMetadata(certificate, MIB - 4096);
  const certificates = await manyCertificatesMetadata(root, MIB - 4096);
  const json = manyKeysJson(MIB - 4096);
  console.log(
    `SAML documents: federation ${Buffer.byteLength(federation.xml)} bytes, certificates ${Buffer.byteLength(certificates)} bytes, JSON ${Buffer.byteLength(json)} bytes`,
  );
  await report('SAML import of 1 MiB federation metadata', () =>
    service.importProperties('bench.example', { body: federation.xml, entityId: federation.entityId }),
  );
  await report('SAML validation of 1 MiB IdP metadata with distinct certificates', () =>
    service.validateDocument({ body: certificates }),
  );
  await report('SAML certificate generation, RSA 4096', () =>
    service.generateCertificate('bench.example', { encryption: 'RSA:4096' }),
  );
  await service.close();
  await samlHttpCases(federation, json);
}

/** The same documents through the server's SAML routes (body parsing and answers included). */
async function samlHttpCases(federation, json) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-event-loop-'));
  const running = await startApp(dataDir);
  const admin = randomUUID();
  const base = `${running.url}/admin/auth`;
  const xml = { admin: true, contentType: 'application/xml' };
  try {
    await report('POST /saml/{domain}?entityId=..., 1 MiB federation metadata', () =>
      call(
        `${base}/saml/bench.example?entityId=${encodeURIComponent(federation.entityId)}`,
        'POST',
        admin,
        federation.xml,
        xml,
      ),
    );
    await report('POST /saml-validate, 1 MiB JSON of unknown keys (answers 400)', () =>
      call(`${base}/saml-validate`, 'POST', admin, json, { admin: true }),
    );
    await report('PUT /saml/{domain}, 1 MiB JSON of unknown keys (answers 400)', () =>
      call(`${base}/saml/bench.example`, 'PUT', admin, json, { admin: true }),
    );
  } finally {
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function documentCases() {
  const limits = { maxEntries: 10_000, maxUncompressedBytes: 512 * MIB, maxCompressionRatio: 200 };
  const documents = [
    ['xlsx of 50 MB in 9 998 sheet parts', manyEntriesXlsx(previewTesting, 50 * MIB, 10_000)],
    ['xlsx of 50 MB with one sheet part', oneLargeEntryXlsx(previewTesting, 50 * MIB)],
    [
      'xls of 50 MB',
      previewTesting.makeLargeCompoundFile({ streams: [{ name: 'Workbook', size: 50 * MIB }] }),
    ],
    [
      'doc of 25 MB whose root holds 100 000 entries',
      previewTesting.makeLargeCompoundFile({
        streams: [{ name: 'WordDocument', size: 12 * MIB }],
        extraEntries: 100_000,
      }),
    ],
  ];
  for (const [name, bytes] of documents) {
    const type = await preview.detectDocumentType(bytes, limits);
    await report(`detectDocumentType, ${name} (${(bytes.byteLength / MIB).toFixed(1)} MiB, ${type})`, () =>
      preview.detectDocumentType(bytes, limits),
    );
  }
}

function token(userId, admin) {
  const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const roles = admin ? ['admin'] : [];
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: userId, roles, iat: now, exp: now + 3600 })}`;
  return `${unsigned}.${createHmac('sha256', SECRET).update(unsigned).digest('base64url')}`;
}

/**
 * A request through node:http; `body` is sent as it is when a string, as JSON otherwise. Resolves
 * with the status and the answer's length (the answer is not parsed).
 */
function call(url, method, userId, body, { admin = false, contentType = 'application/json' } = {}) {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${token(userId, admin)}`, 'content-type': contentType };
    const outgoing = request(url, { method, headers }, (response) => {
      let length = 0;
      response.on('data', (chunk) => {
        length += chunk.length;
      });
      response.on('end', () => resolve({ status: response.statusCode, length }));
    });
    outgoing.on('error', reject);
    outgoing.end(body === undefined || typeof body === 'string' ? body : JSON.stringify(body));
  });
}

async function startApp(dataDir) {
  const config = server.loadConfig({
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: SECRET,
    LOG_LEVEL: 'silent',
    DOCUMENT_CONVERTER: 'none',
    DOCS_ENABLED: 'false',
    // The seeding below creates thousands of rooms as one user.
    CHAT_ROOM_CREATIONS_PER_MINUTE: '1000000',
  });
  const app = await server.createApp({ config });
  const running = await server.startServer(app, { host: '127.0.0.1', port: 0 });
  return { url: `http://127.0.0.1:${running.port}`, stop: () => running.stop(1_000) };
}

async function roomCases(rooms, membersPerRoom) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-event-loop-'));
  const userId = randomUUID();
  try {
    let running = await startApp(dataDir);
    let created = 0;
    const seed = async () => {
      while (created < rooms) {
        created += 1;
        const membersIds = Array.from({ length: membersPerRoom - 1 }, () => randomUUID());
        const answer = await call(`${running.url}/rooms`, 'POST', userId, {
          type: 'group',
          name: `Room ${created}`,
          description: 'bench',
          membersIds,
        });
        if (answer.status !== 201) throw new Error(`POST /rooms answered ${answer.status}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, seed));
    await running.stop();
    running = await startApp(dataDir);
    const listUrl = `${running.url}/rooms?extraFields=members,settings`;
    const first = await measureStalls(() => call(listUrl, 'GET', userId));
    console.log(
      `GET /rooms?extraFields=members,settings, ${rooms} rooms of ${membersPerRoom} members (${first.result.length} bytes), first after a start: longest stall ${first.longestStallMs.toFixed(1)} ms (${first.longestStallMs > TARGET_MS ? 'OVER' : 'ok'}) of ${first.durationMs.toFixed(0)} ms`,
    );
    await report(
      `GET /rooms?extraFields=members,settings, ${rooms} rooms of ${membersPerRoom} members, cached members`,
      () => call(listUrl, 'GET', userId),
    );
    await running.stop();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// `node bench/event-loop-blockers.mjs saml documents rooms` runs only the named groups.
const wanted = process.argv.slice(2).filter((arg) => arg !== '--');
const groups = {
  saml: samlCases,
  documents: documentCases,
  rooms: async () => {
    await roomCases(500, 20);
    await roomCases(500, 128);
    // A user at CHAT_MAX_ROOMS_PER_USER (10 000), in group rooms of the fewest members (3).
    await roomCases(10_000, 3);
  },
};
const floor = await idleFloor(1_000);
console.log(
  `probe floor: longest gap ${floor.longestStallMs.toFixed(1)} ms while idle for 1 s (target: stalls <= ${TARGET_MS} ms)`,
);
for (const [name, run] of Object.entries(groups)) {
  if (wanted.length === 0 || wanted.includes(name)) await run();
}
