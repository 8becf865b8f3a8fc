// Starts a local cluster of the reference server: two media nodes, two API nodes and HAProxy in
// front of the API nodes, on this machine's PostgreSQL and Redis. `pnpm cluster` from the repository
// root builds first. Ctrl-C stops everything. See README.md beside this file.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const here = path.dirname(fileURLToPath(import.meta.url));
const mainScript = path.resolve(here, '../../packages/server/dist/main.js');
const work = path.resolve(process.env.CLUSTER_DIR ?? path.join(here, '.cluster'));
const postgresAdmin = process.env.CLUSTER_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = process.env.CLUSTER_DATABASE ?? 'collab_cluster';
const redisUrl = process.env.CLUSTER_REDIS_URL ?? 'redis://127.0.0.1:6379/2';
const port = Number(process.env.CLUSTER_PORT ?? 8080);
const secret = process.env.AUTH_JWT_SECRET ?? 'local-cluster-secret-change-me-0123456789';

/** Creates the cluster's database when it is missing; resolves with its URL. */
async function databaseUrl() {
  const admin = new pg.Client({ connectionString: postgresAdmin });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresAdmin);
  url.pathname = `/${database}`;
  return url.toString();
}

const children = [];

/** Starts one process; its output lines are prefixed with its name. */
function run(name, command, args, env = {}) {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream.on('data', (chunk) => {
      pending += String(chunk);
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) console.log(`${name.padEnd(8)} ${line}`);
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) console.log(`${name.padEnd(8)} exited (${signal ?? code})`);
  });
  children.push(child);
  return child;
}

let stopping = false;
function stopAll() {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);

async function main() {
  if (!existsSync(mainScript)) throw new Error('build first: pnpm build (or run pnpm cluster from the root)');
  const chatDatabase = await databaseUrl();
  const shared = {
    CHAT_REDIS_URL: redisUrl,
    AUTH_JWT_SECRET: secret,
    HOST: '127.0.0.1',
    DOCUMENT_CONVERTER: process.env.DOCUMENT_CONVERTER ?? 'none',
    MEETING_ICE_HOST_ADDRESSES: '127.0.0.1',
  };
  // What every API node shares: the chat and SAML tables (one database holds both) and the folder
  // of attachment and picture bytes.
  const apiShared = {
    CHAT_DATABASE_URL: chatDatabase,
    SAML_DATABASE_URL: chatDatabase,
    CHAT_BLOB_DIR: path.join(work, 'chat-blobs'),
  };
  const nodes = [
    { name: 'media-1', port: port + 11, env: { NODE_ROLES: 'media' } },
    { name: 'media-2', port: port + 12, env: { NODE_ROLES: 'media' } },
    { name: 'api-1', port: port + 1, env: { NODE_ROLES: 'api', ...apiShared } },
    { name: 'api-2', port: port + 2, env: { NODE_ROLES: 'api', ...apiShared } },
  ];
  for (const node of nodes) {
    const dataDir = path.join(work, node.name);
    mkdirSync(dataDir, { recursive: true });
    run(node.name, process.execPath, [mainScript], {
      ...shared,
      ...node.env,
      NODE_ID: node.name,
      PORT: String(node.port),
      DATA_DIR: dataDir,
    });
  }
  const apis = nodes.filter((node) => node.env.NODE_ROLES === 'api');
  const haproxy = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((candidate) => existsSync(candidate));
  if (haproxy === undefined) {
    console.log(
      `no HAProxy found (apt-get install haproxy): use the API nodes directly, ${apis
        .map((node) => `http://127.0.0.1:${node.port}`)
        .join(' and ')}`,
    );
    return;
  }
  const configuration = path.join(work, 'haproxy.cfg');
  writeFileSync(
    configuration,
    [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  option redispatch',
      '  retries 3',
      '  timeout connect 5s',
      '  timeout client 60s',
      '  timeout server 120s',
      '  timeout tunnel 1h',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend api_nodes',
      'backend api_nodes',
      '  balance roundrobin',
      '  option httpchk GET /health/live/',
      ...apis.map((node) => `  server ${node.name} 127.0.0.1:${node.port} check inter 1s fall 2 rise 2`),
      '',
    ].join('\n'),
  );
  run('haproxy', haproxy, ['-f', configuration, '-db']);
  console.log(
    `cluster starting: API at http://127.0.0.1:${port} (HAProxy over api-1 :${port + 1}, api-2 :${port + 2}); ` +
      `media nodes' health at :${port + 11} and :${port + 12}; PostgreSQL ${database}, Redis ${redisUrl}. ` +
      `Tokens: AUTH_JWT_SECRET=${secret} pnpm -s token <user-id>. Ctrl-C stops it.`,
  );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  stopAll();
  process.exitCode = 1;
});
