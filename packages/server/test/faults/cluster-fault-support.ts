import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from '@collab-suite/chat-domain/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { signLocalToken } from '../../src/auth/sign-token.js';
import {
  type ChatClient,
  chatClientFor,
  type EventsClient,
  type JsonObject,
  openEvents,
  users,
} from '../chat/chat-test-support.js';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { loopbackMeetingEnv } from '../meetings/meeting-test-support.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { fetchHealth, testJwtSecret } from '../support/test-server.js';

/** Heartbeat of the nodes in these tests: short, so that deaths and graces take a few seconds. */
export const heartbeatMs = 300;
/** The cluster's Redis keys in these tests (each test has a Redis of its own). */
export const prefix = 'collab-faults:';

const token = (userId: string) => signLocalToken(testJwtSecret, { userId });

/** A user with an `/events` session on one API node and calls to that node. */
export interface FaultUser {
  userId: string;
  queueId: string;
  events: EventsClient;
  call: ChatClient;
  /** The close code of the `/events` socket, once it closed. */
  closed: Promise<number>;
}

/** Opens an `/events` session for `userId` on the node at `url`; calls go to that node too. */
export async function userOn(url: string, userId: string): Promise<FaultUser> {
  const events = await openEvents(url, await token(userId));
  const closed = new Promise<number>((resolve) => events.socket.once('close', (code) => resolve(code)));
  return {
    userId,
    queueId: String(events.messages[0]?.queueId),
    events,
    call: chatClientFor(url, token)(userId),
    closed,
  };
}

/** A private Redis, the nodes started on it, and what the tests ask of them. */
export interface FaultCluster {
  redis: PrivateRedis;
  /** The cluster's own PostgreSQL, when it was asked for one (`privatePostgres`). */
  postgres?: PrivatePostgres;
  /** A client of the private Redis that survives its restarts. */
  client: Redis;
  databaseUrl: string;
  start(name: string, roles: 'api' | 'media'): Promise<ClusterNode>;
  /** Starts `count` media nodes at once, named `media-1`, `media-2`... */
  startMediaNodes(count: number): Promise<ClusterNode[]>;
  /** Runs one statement on the cluster's database, on a connection of its own. */
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** The meeting's `media_node_id` in PostgreSQL. */
  recordedHome(meetingId: string): Promise<string | null>;
  /** The meetings a media node lists in its `/health/` entry. */
  hostedMeetings(node: ClusterNode): Promise<{ meetingId: string; participants: number }[]>;
  /** The details of an API node's `meetings-media` health entry. */
  apiMediaHealth(node: ClusterNode): Promise<JsonObject>;
  stop(): Promise<void>;
}

/** Runs one statement on the database at `databaseUrl`, on a connection of its own. */
async function queryOnce(databaseUrl: string, text: string, values?: unknown[]): Promise<pg.QueryResult> {
  const database = new pg.Client({ connectionString: databaseUrl });
  await database.connect();
  try {
    return await database.query(text, values);
  } finally {
    await database.end();
  }
}

/**
 * Leaves no meeting of an earlier run active or placed: the API nodes would watch the media nodes
 * PostgreSQL names as homes, which this run may not have.
 */
async function forgetEarlierMeetings(databaseUrl: string): Promise<void> {
  const database = new pg.Client({ connectionString: databaseUrl });
  await database.connect();
  try {
    await database.query(
      `DO $$ BEGIN
         IF to_regclass('chat_meetings') IS NOT NULL THEN
           UPDATE chat_meetings SET active = false, started_at = NULL, media_node_id = NULL
           WHERE active OR media_node_id IS NOT NULL;
         END IF;
       END $$`,
    );
  } catch (error) {
    // 42703: the column comes with the schema migration the nodes apply.
    if ((error as { code?: string }).code !== '42703') throw error;
  } finally {
    await database.end();
  }
}

/**
 * Starts a private Redis (append-only when asked) for a cluster on a PostgreSQL database of its
 * own (`name`): two clusters on one database would be one deployment with two Redis, each watching
 * the media nodes the other placed meetings on.
 */
export async function startFaultCluster(
  name: string,
  options: {
    appendOnly?: boolean;
    /** A PostgreSQL of the cluster's own (to stop or kill), instead of a database on the shared one. */
    privatePostgres?: boolean;
    /** More environment for the API nodes. */
    apiEnv?: Record<string, string>;
  } = {},
): Promise<FaultCluster> {
  const redis = await startPrivateRedis({ appendOnly: options.appendOnly ?? false });
  const client = new Redis(redis.url, { maxRetriesPerRequest: null });
  client.on('error', () => {});
  const postgres = options.privatePostgres ? await startPrivatePostgres() : undefined;
  let databaseUrl: string;
  if (postgres === undefined) {
    databaseUrl = await testDatabaseUrl(`collab_test_faults_cluster_${name}`);
    await forgetEarlierMeetings(databaseUrl);
  } else {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE faults_${name}`);
    await admin.end();
    databaseUrl = postgres.url.replace(/\/postgres$/, `/faults_${name}`);
  }
  const blobDir = mkdtempSync(path.join(tmpdir(), 'collab-faults-blobs-'));
  const nodes: ClusterNode[] = [];
  const health = async (node: ClusterNode, name: string) => {
    const body = (await (await fetchHealth(node.url)).json()) as { dependencies: JsonObject[] };
    return (body.dependencies.find((entry) => entry.name === name)?.details ?? {}) as JsonObject;
  };
  const start = async (name: string, roles: 'api' | 'media'): Promise<ClusterNode> => {
    const env: Record<string, string> = {
      ...loopbackMeetingEnv,
      CHAT_REDIS_URL: redis.url,
      CLUSTER_REDIS_PREFIX: prefix,
      CLUSTER_HEARTBEAT_MS: String(heartbeatMs),
      AUTH_JWT_SECRET: testJwtSecret,
      LOG_LEVEL: 'info',
      NODE_ROLES: roles,
      NODE_ID: name,
      ...(roles === 'api'
        ? {
            CHAT_DATABASE_URL: databaseUrl,
            SAML_DATABASE_URL: databaseUrl,
            CHAT_BLOB_DIR: blobDir,
            ...options.apiEnv,
          }
        : {}),
    };
    const node = await startClusterNode(name, env);
    nodes.push(node);
    return node;
  };
  return {
    redis,
    ...(postgres ? { postgres } : {}),
    client,
    databaseUrl,
    start,
    startMediaNodes(count) {
      return Promise.all(Array.from({ length: count }, (_, index) => start(`media-${index + 1}`, 'media')));
    },
    query: (text, values) => queryOnce(databaseUrl, text, values),
    async recordedHome(meetingId) {
      const result = await queryOnce(databaseUrl, 'SELECT media_node_id FROM chat_meetings WHERE id = $1', [
        meetingId,
      ]);
      return (result.rows[0]?.media_node_id as string | null | undefined) ?? null;
    },
    async hostedMeetings(node) {
      return ((await health(node, 'media-node')).meetings ?? []) as {
        meetingId: string;
        participants: number;
      }[];
    },
    apiMediaHealth: (node) => health(node, 'meetings-media'),
    async stop() {
      for (const node of nodes) if (node.process.signalCode === 'SIGSTOP') node.process.kill('SIGCONT');
      await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
      client.disconnect();
      await redis.stop();
      await postgres?.destroy();
    },
  };
}

/** Creates a group room of `owner` with `members`, its meeting, and starts it; returns the meeting id. */
export async function startedMeeting(owner: FaultUser, members: readonly string[]): Promise<string> {
  const room = await owner.call('POST', '/rooms', {
    // A group room needs two other members: one more who never connects.
    json: { type: 'group', name: 'Faults', membersIds: [...members, randomUUID()] },
  });
  if (room.status !== 201) throw new Error(`room: ${room.status} ${JSON.stringify(room.body)}`);
  const meeting = await owner.call('POST', '/meetings', { json: { roomId: room.body.id } });
  const meetingId = String(meeting.body.id);
  const started = await owner.call('POST', `/meetings/${meetingId}/start`);
  if (started.status !== 200) throw new Error(`start: ${started.status} ${JSON.stringify(started.body)}`);
  return meetingId;
}

/** Alice and Bob with their sessions, their started meeting, and its home once Alice (and Bob) joined. */
export interface TwoUserMeeting {
  ids: Record<'alice' | 'bob', string>;
  alice: FaultUser;
  bob: FaultUser;
  meetingId: string;
  /** The meeting's `media_node_id` in PostgreSQL after the joins. */
  home: string | null;
}

/**
 * Opens `/events` sessions for Alice on `aliceUrl` and Bob on `bobUrl`, starts a meeting of theirs
 * and has Alice join it (and Bob too with `bobJoins`), each join answered 200.
 */
export async function startTwoUserMeeting(
  cluster: FaultCluster,
  aliceUrl: string,
  bobUrl: string,
  options: { bobJoins?: boolean } = {},
): Promise<TwoUserMeeting> {
  const ids = users('alice', 'bob');
  const alice = await userOn(aliceUrl, ids.alice);
  const bob = await userOn(bobUrl, ids.bob);
  const meetingId = await startedMeeting(alice, [ids.bob]);
  for (const user of options.bobJoins ? [alice, bob] : [alice]) {
    const joined = await join(user, meetingId);
    if (joined.status !== 200) throw new Error(`join: ${joined.status} ${JSON.stringify(joined.body)}`);
  }
  return { ids, alice, bob, meetingId, home: await cluster.recordedHome(meetingId) };
}

/** The media nodes of `media` whose `/health/` lists the meeting, with its participant count there. */
export async function holdersOf(
  cluster: FaultCluster,
  media: readonly ClusterNode[],
  meetingId: string,
): Promise<{ name: string; participants: number }[]> {
  const hosting = await Promise.all(media.map((node) => cluster.hostedMeetings(node)));
  return media.flatMap((node, index) =>
    (hosting[index] ?? [])
      .filter((meeting) => meeting.meetingId === meetingId)
      .map((meeting) => ({ name: node.name, participants: meeting.participants })),
  );
}

/** Joins the meeting from the user's `/events` session, through the user's node. */
export function join(user: FaultUser, meetingId: string) {
  return user.call('POST', `/meetings/${meetingId}/join`, {
    json: { audioStreamEnabled: false, videoStreamEnabled: false },
    headers: { 'queue-id': user.queueId },
  });
}

/** The user ids of the meeting's participants, as `user`'s node answers. */
export async function participantsOf(user: FaultUser, meetingId: string): Promise<string[]> {
  const meeting = await user.call('GET', `/meetings/${meetingId}`);
  return (meeting.body.participants as { userId: string }[]).map((participant) => participant.userId).sort();
}

/** Polls `check` until it answers true; fails naming `what` after `timeoutMs`. */
export async function waitUntil(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
