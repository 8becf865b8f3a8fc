import { randomUUID } from 'node:crypto';
import {
  createChatService,
  createMeetingService,
  createMemoryMediaServer,
  type MediaServer,
} from '@collab-suite/chat-domain';
import { openPostgresChatStore, type PostgresChatStore } from '@collab-suite/chat-domain/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTestDatabaseUrl } from '../postgres-helper.js';

let store: PostgresChatStore;

beforeAll(async () => {
  const url = await chatTestDatabaseUrl('collab_test_meeting_coordination');
  store = await openPostgresChatStore({ connectionString: url, maxConnections: 6 });
});
afterAll(async () => {
  await store?.close();
});

/** A media server whose next call of `method` waits until `release` is called: a node frozen mid-call. */
function holdingNext(media: MediaServer, method: 'addParticipant' | 'setAudioEnabled' | 'closeMeeting') {
  let release = () => {};
  let entered = () => {};
  const reached = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = true;
  const original = media[method] as (...args: unknown[]) => Promise<unknown>;
  const wrapped: MediaServer = Object.create(media, {
    [method]: {
      value: async (...args: unknown[]) => {
        if (holding) {
          holding = false;
          entered();
          await held;
        }
        return original.apply(media, args);
      },
    },
  });
  return { media: wrapped, reached, release };
}

const holdingNextJoin = (media: MediaServer) => holdingNext(media, 'addParticipant');

/** A group room of Alice with Bob and Carol, its meeting started, Bob in it, on `node`. */
async function meetingWithBob(node: ReturnType<typeof createMeetingService>) {
  const chat = createChatService({ store, roomObserver: node.roomObserver });
  const [alice, bob, carol] = [randomUUID(), randomUUID(), randomUUID()].map((userId) => ({ userId }));
  if (!alice || !bob || !carol) throw new Error('expected three users');
  const room = await chat.createRoom(alice, {
    type: 'group',
    name: 'Fenced',
    membersIds: [bob.userId, carol.userId],
  });
  const meeting = await node.createMeeting(alice, { roomId: room.id });
  await node.startMeeting(alice, meeting.id);
  await node.joinMeeting(bob, meeting.id, randomUUID(), {
    audioStreamEnabled: false,
    videoStreamEnabled: false,
  });
  return { alice, bob, meeting };
}

describe('fenced meeting locks on PostgreSQL', () => {
  it('refuses the write of a join whose lock another node took meanwhile, and takes back its media', async () => {
    const media = createMemoryMediaServer();
    const frozen = holdingNextJoin(media);
    // Each "node" has a lock of its own: the frozen node's lease expired, so both hold the lock.
    const nodeA = createMeetingService({ store, media: frozen.media, fencing: true });
    const nodeB = createMeetingService({ store, media, fencing: true });
    const chat = createChatService({ store, roomObserver: nodeB.roomObserver });
    const [alice, bob, carol] = [randomUUID(), randomUUID(), randomUUID()].map((userId) => ({ userId }));
    if (!alice || !bob || !carol) throw new Error('expected three users');
    const room = await chat.createRoom(alice, {
      type: 'group',
      name: 'Fenced',
      membersIds: [bob.userId, carol.userId],
    });
    const meeting = await nodeB.createMeeting(alice, { roomId: room.id });
    await nodeB.startMeeting(alice, meeting.id);
    const settings = { audioStreamEnabled: false, videoStreamEnabled: false };
    await nodeB.joinMeeting(bob, meeting.id, randomUUID(), settings);

    const staleJoin = nodeA.joinMeeting(alice, meeting.id, randomUUID(), settings);
    await frozen.reached;
    // Meanwhile the other node acts under the lock: Bob leaves, the meeting stops.
    await nodeB.leaveMeeting(bob, meeting.id);
    frozen.release();

    await expect(staleJoin).rejects.toMatchObject({
      code: 'dependency_unavailable',
      message: expect.stringContaining('another node took it since'),
    });
    expect(await store.listParticipants(meeting.id)).toEqual([]);
    expect((await store.getMeeting(meeting.id))?.active).toBe(false);
    expect(media.meetings.has(meeting.id)).toBe(false);
    nodeA.close();
    nodeB.close();
  });

  it('refuses the stream switch of a node whose lock another node took meanwhile, and switches the media back', async () => {
    const media = createMemoryMediaServer();
    const frozen = holdingNext(media, 'setAudioEnabled');
    const nodeA = createMeetingService({ store, media: frozen.media, fencing: true });
    const nodeB = createMeetingService({ store, media, fencing: true });
    const { bob, meeting } = await meetingWithBob(nodeB);

    const staleSwitch = nodeA.updateAudio(bob, meeting.id, { enabled: true });
    await frozen.reached;
    // Meanwhile the other node acts under the lock: Bob joins again from another session, muted.
    await nodeB.joinMeeting(bob, meeting.id, randomUUID(), {
      audioStreamEnabled: false,
      videoStreamEnabled: false,
    });
    frozen.release();

    await expect(staleSwitch).rejects.toMatchObject({
      code: 'dependency_unavailable',
      message: expect.stringContaining('another node took it since'),
    });
    expect((await store.getParticipant(meeting.id, bob.userId))?.audioStreamEnabled).toBe(false);
    expect(media.meetings.get(meeting.id)?.get(bob.userId)?.audioEnabled).toBe(false);
    nodeA.close();
    nodeB.close();
  });

  it('refuses the deletion of a node whose lock another node took before it acted, leaving meeting and media', async () => {
    const media = createMemoryMediaServer();
    const nodeB = createMeetingService({ store, media, fencing: true });
    const { alice, meeting } = await meetingWithBob(nodeB);
    // Node A froze holding the lock: it claimed its token, and resumes just before checking it.
    let resume = () => {};
    const resumed = new Promise<void>((resolve) => {
      resume = resolve;
    });
    let stalled = () => {};
    const reached = new Promise<void>((resolve) => {
      stalled = resolve;
    });
    const frozenStore = Object.create(store, {
      requireMeetingFence: {
        value: async (meetingId: string, fence: number) => {
          stalled();
          await resumed;
          return store.requireMeetingFence(meetingId, fence);
        },
      },
    });
    const nodeA = createMeetingService({ store: frozenStore, media, fencing: true });
    const staleDelete = nodeA.deleteMeeting(alice, meeting.id);
    await reached;
    await nodeB.joinMeeting(alice, meeting.id, randomUUID(), {
      audioStreamEnabled: false,
      videoStreamEnabled: false,
    });
    resume();

    await expect(staleDelete).rejects.toMatchObject({ code: 'dependency_unavailable' });
    expect((await store.getMeeting(meeting.id))?.active).toBe(true);
    expect(await store.listParticipants(meeting.id)).toHaveLength(2);
    expect(media.meetings.get(meeting.id)?.size).toBe(2);
    nodeA.close();
    nodeB.close();
  });

  it('refuses the database deletion of a node whose lock passed to another while it closed the media', async () => {
    const media = createMemoryMediaServer();
    const frozen = holdingNext(media, 'closeMeeting');
    const nodeA = createMeetingService({ store, media: frozen.media, fencing: true });
    const nodeB = createMeetingService({ store, media, fencing: true });
    const { alice, meeting } = await meetingWithBob(nodeB);

    const staleDelete = nodeA.deleteMeeting(alice, meeting.id);
    await frozen.reached;
    await nodeB.joinMeeting(alice, meeting.id, randomUUID(), {
      audioStreamEnabled: false,
      videoStreamEnabled: false,
    });
    frozen.release();

    await expect(staleDelete).rejects.toMatchObject({ code: 'dependency_unavailable' });
    expect(await store.getMeeting(meeting.id)).toMatchObject({ id: meeting.id, active: true });
    expect(await store.listParticipants(meeting.id)).toHaveLength(2);
    nodeA.close();
    nodeB.close();
  });

  it('refuses a meeting service with fencing on a store that cannot issue tokens', async () => {
    const { createMemoryChatStore } = await import('@collab-suite/chat-domain');
    expect(() => createMeetingService({ store: createMemoryChatStore(), fencing: true })).toThrow(
      /claimMeetingFence/,
    );
  });
});
