import { randomUUID } from 'node:crypto';
import {
  type ChatService,
  type ChatStore,
  checkMemberRemoval,
  createChatService,
} from '@collab-suite/chat-domain';
import { openPostgresChatStore } from '@collab-suite/chat-domain/postgres';
import { memberFixture, roomFixture, waitUntil } from '@collab-suite/chat-domain/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTestDatabaseUrl } from './postgres-helper.js';

// Each "process" is a store with a pool of its own (and, for the service tests, a service with its
// own in-process locks), all on one real PostgreSQL database. Tests use fresh random users and
// rooms and never truncate, so the database is theirs alone only by name.
const rounds = 12;
const maxRoomMembers = 4;
const t0 = Date.parse('2024-05-01T10:00:00.000Z');

interface Process {
  name: string;
  pool: pg.Pool;
  store: ChatStore;
  service: ChatService;
}

let url = '';
const processes: Process[] = [];

async function startProcess(): Promise<Process> {
  const name = `room-lock-${randomUUID()}`;
  const pool = new pg.Pool({ connectionString: url, max: 8, application_name: name });
  const store = await openPostgresChatStore({ pool });
  const service = createChatService({ store, limits: { maxRoomMembers } });
  return { name, pool, store, service };
}

beforeAll(async () => {
  url = await chatTestDatabaseUrl('collab_test_chat_locks');
  processes.push(await startProcess(), await startProcess());
});

afterAll(async () => {
  for (const instance of processes) {
    await instance.store.close();
    await instance.pool.end();
  }
});

const users = () => ({ alice: randomUUID(), bob: randomUUID(), carol: randomUUID() });

/** A group owned by alice and bob, with carol, created through the first process. */
async function twoOwnerRoom(alice: string, bob: string, carol: string): Promise<string> {
  const [first] = processes;
  if (first === undefined) throw new Error('no process');
  const room = await first.service.createRoom(
    { userId: alice },
    {
      type: 'group',
      name: 'Race',
      membersIds: [bob, carol],
    },
  );
  await first.service.setOwner({ userId: alice }, room.id, bob, true);
  return room.id;
}

/** Settles both calls, started together; returns the errors' codes and how many succeeded. */
async function race(calls: [Promise<unknown>, Promise<unknown>]) {
  const outcomes = await Promise.allSettled(calls);
  const fulfilled = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
  const codes = outcomes.flatMap((outcome) =>
    outcome.status === 'rejected'
      ? [(outcome.reason as { code?: string }).code ?? String(outcome.reason)]
      : [],
  );
  return { fulfilled, codes };
}

type People = ReturnType<typeof users>;
type RaceCalls = (
  first: Process,
  second: Process,
  people: People,
  roomId: string,
) => [Promise<unknown>, Promise<unknown>];

/**
 * Runs `rounds` races at once, each in a fresh room from `twoOwnerRoom`: `calls` starts one call
 * through each process; returns each race's outcome and the room's member and owner counts after it.
 */
async function raceInFreshRooms(calls: RaceCalls) {
  const [first, second] = processes;
  if (first === undefined || second === undefined) throw new Error('no processes');
  return Promise.all(
    Array.from({ length: rounds }, async () => {
      const people = users();
      const roomId = await twoOwnerRoom(people.alice, people.bob, people.carol);
      const outcome = await race(calls(first, second, people, roomId));
      const members = await first.store.listMembers(roomId);
      return {
        ...outcome,
        members: members.length,
        owners: members.filter((member) => member.owner).length,
      };
    }),
  );
}

describe('PostgreSQL room lock across two store instances (two pools = two processes)', () => {
  it("holds the second process's lock in PostgreSQL until the first commits, then shows it the change", async () => {
    const [first, second] = processes;
    if (first === undefined || second === undefined) throw new Error('no processes');
    const { alice, bob, carol } = users();
    const room = roomFixture(t0);
    await first.store.insertRoom(room, [
      memberFixture(alice, true, t0),
      memberFixture(bob, true, t0),
      memberFixture(carol, false, t0),
    ]);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let aliceChecked = false;
    const aliceLeaves = first.store.withRoomLock(room.id, async (locked) => {
      const members = await locked.listMembers();
      const alicePlace = members.find((member) => member.userId === alice);
      if (alicePlace === undefined) throw new Error('alice is missing');
      checkMemberRemoval(locked.room, alicePlace, alice, members);
      aliceChecked = true;
      await held;
      await locked.deleteMember(alice);
    });
    await waitUntil(() => aliceChecked, 5000, 'the first lock');
    const bobLeaves = second.store.withRoomLock(room.id, async (locked) => {
      const members = await locked.listMembers();
      const bobPlace = members.find((member) => member.userId === bob);
      if (bobPlace === undefined) throw new Error('bob is missing');
      checkMemberRemoval(locked.room, bobPlace, bob, members);
      await locked.deleteMember(bob);
    });
    const observer = new pg.Client({ connectionString: url });
    await observer.connect();
    try {
      const deadline = Date.now() + 5000;
      for (;;) {
        const waiting = await observer.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
          [second.name],
        );
        if (waiting.rows[0]?.n === 1) break;
        if (Date.now() > deadline) throw new Error('the second process never waited for the row lock');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      await observer.end();
    }
    release();
    await aliceLeaves;
    await expect(bobLeaves).rejects.toMatchObject({ code: 'last_owner' });
    expect(await second.store.listMembers(room.id)).toEqual([
      memberFixture(bob, true, t0),
      memberFixture(carol, false, t0),
    ]);
  });

  it('rolls back the writes of a work that throws', async () => {
    const [first] = processes;
    if (first === undefined) throw new Error('no process');
    const { alice, bob } = users();
    const room = roomFixture(t0);
    await first.store.insertRoom(room, [memberFixture(alice, true, t0)]);
    await expect(
      first.store.withRoomLock(room.id, async (locked) => {
        await locked.insertMember(memberFixture(bob, false, t0));
        await locked.setOwner(alice, false);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await first.store.listMembers(room.id)).toEqual([memberFixture(alice, true, t0)]);
  });

  it('two owners leaving at once through two processes: one leaves, the other is the last owner', async () => {
    const results = await raceInFreshRooms((first, second, { alice, bob }, roomId) => [
      first.service.removeMember({ userId: alice }, roomId, alice),
      second.service.removeMember({ userId: bob }, roomId, bob),
    ]);
    expect(results).toEqual(
      Array(rounds).fill({ fulfilled: 1, codes: ['last_owner'], members: 2, owners: 1 }),
    );
  });

  it('two owners demoting each other at once through two processes: one wins, one owner remains', async () => {
    const results = await raceInFreshRooms((first, second, { alice, bob }, roomId) => [
      first.service.setOwner({ userId: alice }, roomId, bob, false),
      second.service.setOwner({ userId: bob }, roomId, alice, false),
    ]);
    expect(results).toEqual(
      Array(rounds).fill({ fulfilled: 1, codes: ['not_an_owner'], members: 3, owners: 1 }),
    );
  });

  it('two owners adding a member to a room one short of the limit: one is added, the other is room_full', async () => {
    const newcomer = () => ({ userId: randomUUID(), owner: false, historyCleared: false });
    const results = await raceInFreshRooms((first, second, { alice, bob }, roomId) => [
      first.service.addMember({ userId: alice }, roomId, newcomer()),
      second.service.addMember({ userId: bob }, roomId, newcomer()),
    ]);
    expect(results).toEqual(
      Array(rounds).fill({ fulfilled: 1, codes: ['room_full'], members: maxRoomMembers, owners: 2 }),
    );
  });
});
