import { randomUUID } from 'node:crypto';
import { isChatError } from '@collab-suite/chat-domain';
import { openPostgresChatStore, type PostgresChatStore } from '@collab-suite/chat-domain/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTestDatabaseUrl } from './postgres-helper.js';

let store: PostgresChatStore;

beforeAll(async () => {
  const url = await chatTestDatabaseUrl('collab_test_meeting_coordination');
  store = await openPostgresChatStore({ connectionString: url, maxConnections: 4 });
});
afterAll(async () => {
  await store?.close();
});

async function newMeeting(): Promise<string> {
  const roomId = randomUUID();
  const now = new Date();
  await store.insertRoom(
    {
      id: roomId,
      type: 'group',
      name: 'Fenced',
      description: '',
      meetingId: null,
      createdAt: now,
      updatedAt: now,
      pictureUpdatedAt: null,
    },
    [{ userId: randomUUID(), owner: true, joinedAt: now }],
  );
  const meetingId = randomUUID();
  await store.insertMeeting({
    id: meetingId,
    roomId,
    name: 'Fenced',
    meetingType: 'permanent',
    expiration: null,
    active: false,
    startedAt: null,
    createdAt: now,
  });
  return meetingId;
}

const participant = (userId: string) => ({
  userId,
  queueId: randomUUID(),
  audioStreamEnabled: false,
  videoStreamEnabled: false,
  screenStreamEnabled: false,
  joinedAt: new Date(),
});

describe('meeting coordination in PostgreSQL', () => {
  it('issues increasing fencing tokens and refuses writes carrying an older one', async () => {
    const meetingId = await newMeeting();
    const first = await store.claimMeetingFence(meetingId);
    const second = await store.claimMeetingFence(meetingId);
    expect(first).toBe(1);
    expect(second).toBe(2);
    const stale = store.putParticipant(meetingId, participant(randomUUID()), first);
    await expect(stale).rejects.toSatisfy(
      (error) => isChatError(error) && error.code === 'dependency_unavailable',
    );
    await expect(store.setMeetingStarted(meetingId, new Date(), first)).rejects.toThrow(/fencing token 1/);
    expect(await store.listParticipants(meetingId)).toEqual([]);
    const userId = randomUUID();
    await store.putParticipant(meetingId, participant(userId), second);
    expect(await store.deleteParticipant(meetingId, userId, undefined, first).catch(() => 'refused')).toBe(
      'refused',
    );
    expect(await store.deleteParticipant(meetingId, userId, undefined, second)).toBe(true);
    expect(await store.claimMeetingFence(randomUUID())).toBeUndefined();
  });

  it('records one media node per meeting: a second placement loses to the first', async () => {
    const meetingId = await newMeeting();
    expect(await store.meetingMediaNode(meetingId)).toBeUndefined();
    const placed = await Promise.all([
      store.placeMeetingMedia(meetingId, 'media-1', null),
      store.placeMeetingMedia(meetingId, 'media-2', null),
    ]);
    expect(placed[0]).toBe(placed[1]);
    const home = placed[0] as string;
    expect(await store.meetingMediaNode(meetingId)).toBe(home);
    // Replacing needs the current home: a stale expectation changes nothing.
    expect(await store.placeMeetingMedia(meetingId, 'media-3', 'media-9')).toBe(home);
    expect(await store.placeMeetingMedia(meetingId, 'media-3', home)).toBe('media-3');
    expect(await store.listMeetingsOnMediaNode('media-3')).toEqual([meetingId]);
    expect(await store.listMediaHomes()).not.toContain('media-3');
    await store.setMeetingStarted(meetingId, new Date());
    expect(await store.listMediaHomes()).toContain('media-3');
    await store.forgetMeetingMedia(meetingId, home);
    expect(await store.meetingMediaNode(meetingId)).toBe('media-3');
    await store.forgetMeetingMedia(meetingId, 'media-3');
    expect(await store.meetingMediaNode(meetingId)).toBeUndefined();
    expect(await store.placeMeetingMedia(randomUUID(), 'media-1', null)).toBeUndefined();
  });
});
