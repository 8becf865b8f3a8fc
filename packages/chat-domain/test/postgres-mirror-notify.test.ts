import { randomUUID } from 'node:crypto';
import { openPostgresChatStore, type PostgresChatStore } from '@collab-suite/chat-domain/postgres';
import { eventually, memberFixture, roomFixture, waitUntil } from '@collab-suite/chat-domain/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mirrorListenerApplicationName } from '../src/stores/postgres-mirror-listener.js';
import { chatTestDatabaseUrl, truncateChatTables } from './postgres-helper.js';

/** How many listening connections of the mirror the database has now. */
async function listeningConnections(admin: pg.Client): Promise<number[]> {
  const result = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
    [mirrorListenerApplicationName],
  );
  return result.rows.map((row) => row.pid);
}

// Two stores on one database stand for two server processes: what one queues wakes the other.
describe('PostgreSQL outbox notices (onMirrorOperationsQueued)', () => {
  let url: string;
  let admin: pg.Client;
  let listening: PostgresChatStore;
  let queueing: PostgresChatStore;
  const stops: (() => Promise<void>)[] = [];
  const subscribe = async (notices: (string | undefined)[]) => {
    const subscription = listening.onMirrorOperationsQueued;
    if (!subscription) throw new Error('the PostgreSQL store has no onMirrorOperationsQueued');
    const stop = await subscription((leaseOwner) => notices.push(leaseOwner));
    stops.push(stop);
    return stop;
  };
  const queueOne = () =>
    queueing.enqueueMirrorOperations([{ kind: 'room', roomId: randomUUID() }], new Date());

  beforeAll(async () => {
    url = await chatTestDatabaseUrl('xmppscale_mirror_notify');
    listening = await openPostgresChatStore({ connectionString: url, maxConnections: 2 });
    queueing = await openPostgresChatStore({ connectionString: url, maxConnections: 2 });
    await truncateChatTables(url);
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await queueing.setMirrorOutboxEnabled(false);
    await admin.query('TRUNCATE chat_mirror_outbox, chat_mirror_lease');
  });
  afterAll(async () => {
    await listening?.close();
    await queueing?.close();
    await admin?.end();
  });

  it('tells a subscriber of another store about operations queued, naming the owner of a valid lease', async () => {
    const notices: (string | undefined)[] = [];
    await subscribe(notices);
    // Once listening it says so: a drainer should look in case it missed something.
    expect(notices).toEqual([undefined]);
    await queueOne();
    await waitUntil(() => notices.length === 2, 5000, 'the notice without a lease');
    expect(notices[1]).toBeUndefined();

    const now = new Date();
    await listening.claimMirrorOperations({
      owner: 'drainer-a',
      limit: 10,
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
    });
    await queueOne();
    await waitUntil(() => notices.length === 3, 5000, 'the notice naming the lease owner');
    expect(notices[2]).toBe('drainer-a');

    // A lease that ran out names nobody: every drainer looks.
    await listening.claimMirrorOperations({ owner: 'drainer-a', limit: 1, now: new Date(), leaseUntil: now });
    await queueOne();
    await waitUntil(() => notices.length === 4, 5000, 'the notice after the lease ran out');
    expect(notices[3]).toBeUndefined();
  });

  it('notices room changes the store queues by itself, once per transaction', async () => {
    const notices: (string | undefined)[] = [];
    await subscribe(notices);
    await queueing.setMirrorOutboxEnabled(true);
    const at = Date.now();
    // One room with three members: four queued operations in one transaction, one notice.
    await queueing.insertRoom(roomFixture(at), [
      memberFixture(randomUUID(), true, at),
      memberFixture(randomUUID(), false, at),
      memberFixture(randomUUID(), false, at),
    ]);
    expect(await queueing.countMirrorOperations()).toBe(4);
    // A later notice, told apart by its lease owner, arrives after any the room's commit sent.
    const now = new Date();
    await listening.claimMirrorOperations({
      owner: 'marker',
      limit: 1,
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
    });
    await queueOne();
    await waitUntil(() => notices.includes('marker'), 5000, 'the marked notice');
    expect(notices).toEqual([undefined, undefined, 'marker']);
  });

  it('reconnects when its connection is killed, says so, and notices again', async () => {
    const notices: (string | undefined)[] = [];
    await subscribe(notices);
    const [pid] = await listeningConnections(admin);
    expect(pid).toBeDefined();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitUntil(() => notices.length === 2, 10_000, 'the notice of the reconnection');
    expect(notices[1]).toBeUndefined();
    const pids = await listeningConnections(admin);
    expect(pids).toHaveLength(1);
    expect(pids[0]).not.toBe(pid);
    await queueOne();
    await waitUntil(() => notices.length === 3, 5000, 'a notice after the reconnection');
  });

  it('holds one connection while subscribed and closes it with the last subscriber', async () => {
    const first: (string | undefined)[] = [];
    const second: (string | undefined)[] = [];
    const stopFirst = await subscribe(first);
    const stopSecond = await subscribe(second);
    expect(await listeningConnections(admin)).toHaveLength(1);
    await queueOne();
    await waitUntil(() => first.length >= 2 && second.length >= 1, 5000, 'both subscribers told');
    await stopFirst();
    expect(await listeningConnections(admin)).toHaveLength(1);
    await stopSecond();
    await eventually(async () => {
      expect(await listeningConnections(admin)).toEqual([]);
    });
  });
});
