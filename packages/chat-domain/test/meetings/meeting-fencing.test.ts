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

/** A media server whose next addParticipant waits until `release` is called: a node frozen mid-join. */
function holdingNextJoin(media: MediaServer) {
  let release = () => {};
  let entered = () => {};
  const reached = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const wrapped: MediaServer = Object.create(media, {
    addParticipant: {
      value: async (meetingId: string, userId: string) => {
        entered();
        await held;
        return media.addParticipant(meetingId, userId);
      },
    },
  });
  return { media: wrapped, reached, release };
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

  it('refuses a meeting service with fencing on a store that cannot issue tokens', async () => {
    const { createMemoryChatStore } = await import('@collab-suite/chat-domain');
    expect(() => createMeetingService({ store: createMemoryChatStore(), fencing: true })).toThrow(
      /claimMeetingFence/,
    );
  });
});
