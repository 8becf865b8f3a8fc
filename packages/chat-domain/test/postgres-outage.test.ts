import { randomUUID } from 'node:crypto';
import { isChatError } from '@collab-suite/chat-domain';
import { openPostgresChatStore, type PostgresChatStore } from '@collab-suite/chat-domain/postgres';
import {
  eventually,
  memberFixture,
  type PrivatePostgres,
  roomFixture,
  startPrivatePostgres,
  waitUntil,
} from '@collab-suite/chat-domain/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Inserts one room with one owner; resolves once committed. */
async function insertRoom(store: PostgresChatStore, userId: string): Promise<string> {
  const room = roomFixture(Date.now());
  await store.insertRoom(room, [memberFixture(userId, true, Date.now())]);
  return room.id;
}

/** What a call rejects with, or `undefined` when it resolves. */
async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
    return undefined;
  } catch (error) {
    return error;
  }
}

// A PostgreSQL of the test's own: it is stopped and killed under the store.
describe('the PostgreSQL chat store while PostgreSQL restarts or dies', () => {
  let postgres: PrivatePostgres;
  let store: PostgresChatStore;
  let databaseUrl: string;
  const notices: (string | undefined)[] = [];
  let stopListening: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('CREATE DATABASE chat_outage');
    await admin.end();
    const url = new URL(postgres.url);
    url.pathname = '/chat_outage';
    databaseUrl = url.toString();
    store = await openPostgresChatStore({ connectionString: databaseUrl, maxConnections: 4 });
    stopListening = await store.onMirrorOperationsQueued?.((owner) => notices.push(owner));
  }, 120_000);
  afterAll(async () => {
    await stopListening?.();
    await store?.close();
    await postgres?.destroy();
  });

  it('fails calls with dependency_unavailable while stopped, and works again after a fast restart', async () => {
    const userId = randomUUID();
    // Connections idle in the pool and a LISTENing one: their loss must not throw from an emitter.
    await Promise.all([insertRoom(store, userId), insertRoom(store, userId), insertRoom(store, userId)]);
    await waitUntil(() => notices.length >= 1, 30_000, 'the listener to listen');
    await postgres.stop('fast');
    // A fast stop ends every backend before the postmaster exits: calls fail at once.
    const noticesBefore = notices.length;
    try {
      const failure = await failureOf(store.listRoomsOfUser(userId, { members: true, settings: true }));
      expect(isChatError(failure, 'dependency_unavailable')).toBe(true);
      expect((failure as { details: unknown }).details).toEqual({
        dependency: 'postgresql',
        retryAfterSeconds: expect.any(Number),
      });
      expect((failure as Error).message).not.toContain('postgres://');
      const write = await failureOf(insertRoom(store, userId));
      expect(isChatError(write, 'dependency_unavailable')).toBe(true);
    } finally {
      await postgres.start();
    }
    await eventually(async () => {
      expect(await store.countRoomsOfUser(userId)).toBe(3);
    }, 30_000);
    await insertRoom(store, userId);
    expect(await store.countRoomsOfUser(userId)).toBe(4);
    // The listener is back and says so, since notices may have been missed meanwhile.
    await waitUntil(() => notices.length > noticesBefore, 30_000, 'the listener to listen again');
  });

  it('fails calls with dependency_unavailable after a kill, and keeps every committed write', async () => {
    const userId = randomUUID();
    const committed = await Promise.all([insertRoom(store, userId), insertRoom(store, userId)]);
    await postgres.stop('kill');
    try {
      // Backends of a killed postmaster answer until they notice it is gone: wait for that.
      await eventually(async () => {
        const failure = await failureOf(store.getRoom(committed[0] as string));
        expect(isChatError(failure, 'dependency_unavailable')).toBe(true);
      }, 30_000);
    } finally {
      await postgres.start();
    }
    await eventually(async () => {
      expect(await store.countRoomsOfUser(userId)).toBe(2);
    }, 30_000);
    expect((await store.getRoom(committed[1] as string))?.id).toBe(committed[1]);
  });

  it('fails calls within its connect and query bounds while PostgreSQL hangs, and works once it answers', async () => {
    const bounded = await openPostgresChatStore({
      connectionString: databaseUrl,
      maxConnections: 2,
      connectionTimeoutMs: 500,
      queryTimeoutMs: 1000,
    });
    try {
      const userId = randomUUID();
      await insertRoom(bounded, userId);
      postgres.pause();
      // An idle connection of the pool: the statement gets no answer, past the query bound.
      const silent = await failureOf(bounded.countRoomsOfUser(userId));
      expect(isChatError(silent, 'dependency_unavailable')).toBe(true);
      // A new connection: the kernel takes it, the server never answers, past the connect bound.
      const unanswered = await failureOf(
        Promise.all([bounded.countRoomsOfUser(userId), bounded.countRoomsOfUser(userId)]),
      );
      expect(isChatError(unanswered, 'dependency_unavailable')).toBe(true);
      postgres.resume();
      await eventually(async () => {
        expect(await bounded.countRoomsOfUser(userId)).toBe(1);
      }, 30_000);
    } finally {
      postgres.resume();
      await bounded.close();
    }
  });

  it('migrates on a connection without the query bound: waiting for another migration past it still opens', async () => {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('CREATE DATABASE chat_outage_migration');
    await admin.end();
    const url = new URL(postgres.url);
    url.pathname = '/chat_outage_migration';
    // Another node's migration: it holds the schema lock in an open transaction.
    const other = new pg.Client({ connectionString: url.toString() });
    await other.connect();
    await other.query('BEGIN');
    await other.query("SELECT pg_advisory_xact_lock(hashtext('collab_suite_chat_schema'))");
    const queryTimeoutMs = 200;
    const opening = openPostgresChatStore({
      connectionString: url.toString(),
      maxConnections: 2,
      queryTimeoutMs,
    });
    // Not `other`: in a transaction, pg_stat_activity keeps showing what it showed first.
    const observer = new pg.Client({ connectionString: postgres.url });
    await observer.connect();
    try {
      // The store's migration has waited for the lock several times its statement bound.
      await eventually(async () => {
        const waiting = await observer.query<{ waited: number }>(
          `SELECT extract(epoch FROM clock_timestamp() - query_start) * 1000 AS waited FROM pg_stat_activity
           WHERE datname = 'chat_outage_migration' AND wait_event_type = 'Lock'`,
        );
        expect(Number(waiting.rows[0]?.waited ?? 0)).toBeGreaterThan(queryTimeoutMs * 5);
      }, 30_000);
    } finally {
      await observer.end();
      await other.query('COMMIT');
      await other.end();
    }
    const migrated = await opening;
    try {
      const userId = randomUUID();
      await insertRoom(migrated, userId);
      expect(await migrated.countRoomsOfUser(userId)).toBe(1);
    } finally {
      await migrated.close();
    }
  });

  it('still answers a constraint violation as the caller’s fault, not as an outage', async () => {
    const userId = randomUUID();
    const roomId = await insertRoom(store, userId);
    const failure = await failureOf(
      store.insertMember(roomId, memberFixture(userId, false, Date.now()), undefined, undefined),
    );
    expect(isChatError(failure, 'already_member')).toBe(true);
  });
});
