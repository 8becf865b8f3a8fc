import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MeetingRecord } from '../meetings/meeting-model.js';
import type { ChatStore } from '../ports/chat-store.js';
import { memberFixture, roomFixture } from './fixtures.js';
import { meetingFixture, participantFixture } from './meeting-fixtures.js';

const t0 = Date.parse('2024-05-01T10:00:00.000Z');

/**
 * Registers the meeting behaviour every {@link ChatStore} must have (its {@link MeetingStore} part).
 * `open` returns a fresh, empty store for each test.
 */
export function describeMeetingStoreConformance(name: string, open: () => Promise<ChatStore>): void {
  describe(`MeetingStore conformance: ${name}`, () => {
    let store: ChatStore;
    const alice = randomUUID();
    const bob = randomUUID();
    const roomWithMeeting = async (at = t0, overrides: Partial<MeetingRecord> = {}) => {
      const room = roomFixture(at);
      await store.insertRoom(room, [memberFixture(alice, true, at), memberFixture(bob, false, at)]);
      const meeting = meetingFixture(room.id, at, overrides);
      await store.insertMeeting(meeting);
      return { room, meeting };
    };

    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('round-trips a meeting, links it to its room and refuses a second one in that room', async () => {
      const expiration = new Date(t0 + 3_600_000);
      const { room, meeting } = await roomWithMeeting(t0, { meetingType: 'scheduled', expiration });
      expect(await store.getMeeting(meeting.id)).toEqual(meeting);
      expect(await store.getMeetingOfRoom(room.id)).toEqual(meeting);
      expect((await store.getRoom(room.id))?.meetingId).toBe(meeting.id);
      await expect(store.insertMeeting(meetingFixture(room.id, t0))).rejects.toMatchObject({
        code: 'meeting_exists',
      });
      await expect(store.insertMeeting(meetingFixture(randomUUID(), t0))).rejects.toMatchObject({
        code: 'room_not_found',
      });
      expect(await store.getMeeting(randomUUID())).toBeUndefined();
    });

    it("lists the meetings of a member's rooms, oldest first, and the active ones", async () => {
      const second = await roomWithMeeting(t0 + 10);
      const first = await roomWithMeeting(t0);
      const outsider = roomFixture(t0);
      await store.insertRoom(outsider, [memberFixture(randomUUID(), true, t0)]);
      await store.insertMeeting(meetingFixture(outsider.id, t0));
      expect((await store.listMeetingsOfUser(bob)).map((meeting) => meeting.id)).toEqual([
        first.meeting.id,
        second.meeting.id,
      ]);
      expect(await store.listMeetingsOfUser(randomUUID())).toEqual([]);
      await store.setMeetingStarted(second.meeting.id, new Date(t0 + 20));
      expect((await store.listActiveMeetings()).map((meeting) => meeting.id)).toEqual([second.meeting.id]);
    });

    it('starts and stops; stopping removes every participant', async () => {
      const { meeting } = await roomWithMeeting();
      const started = await store.setMeetingStarted(meeting.id, new Date(t0 + 5));
      expect(started).toEqual({ ...meeting, active: true, startedAt: new Date(t0 + 5) });
      await store.putParticipant(meeting.id, participantFixture(alice, t0 + 6));
      const stopped = await store.setMeetingStarted(meeting.id, null);
      expect(stopped).toEqual({ ...meeting, active: false, startedAt: null });
      expect(await store.listParticipants(meeting.id)).toEqual([]);
      expect(await store.setMeetingStarted(randomUUID(), null)).toBeUndefined();
    });

    it('keeps one row per user: a second put replaces it (new queue, streams reset)', async () => {
      const { meeting } = await roomWithMeeting();
      const first = participantFixture(alice, t0 + 1);
      await store.putParticipant(meeting.id, { ...first, audioStreamEnabled: true });
      const bobs = participantFixture(bob, t0 + 2);
      await store.putParticipant(meeting.id, bobs);
      const again = participantFixture(alice, t0 + 3);
      await store.putParticipant(meeting.id, again);
      expect(await store.listParticipants(meeting.id)).toEqual([bobs, again]);
      expect(await store.getParticipant(meeting.id, alice)).toEqual(again);
      await expect(store.putParticipant(randomUUID(), first)).rejects.toMatchObject({
        code: 'meeting_not_found',
      });
    });

    it('changes only the given stream flags', async () => {
      const { meeting } = await roomWithMeeting();
      const participant = participantFixture(alice, t0);
      await store.putParticipant(meeting.id, participant);
      const updated = await store.updateParticipantStreams(meeting.id, alice, { videoStreamEnabled: true });
      expect(updated).toEqual({ ...participant, videoStreamEnabled: true });
      const again = await store.updateParticipantStreams(meeting.id, alice, { audioStreamEnabled: true });
      expect(again).toEqual({ ...participant, videoStreamEnabled: true, audioStreamEnabled: true });
      expect(
        await store.updateParticipantStreams(meeting.id, bob, { audioStreamEnabled: true }),
      ).toBeUndefined();
    });

    it('removes a participant only from the queue it joined from, and finds meetings by queue', async () => {
      const { meeting } = await roomWithMeeting();
      const queueId = randomUUID();
      await store.putParticipant(meeting.id, participantFixture(alice, t0, queueId));
      expect(await store.findMeetingsOfQueue(alice, queueId)).toEqual([meeting.id]);
      expect(await store.findMeetingsOfQueue(alice, randomUUID())).toEqual([]);
      expect(await store.deleteParticipant(meeting.id, alice, randomUUID())).toBe(false);
      expect(await store.deleteParticipant(meeting.id, alice, queueId)).toBe(true);
      expect(await store.deleteParticipant(meeting.id, alice)).toBe(false);
      await store.putParticipant(meeting.id, participantFixture(bob, t0));
      expect(await store.deleteParticipant(meeting.id, bob)).toBe(true);
    });

    it('lists the participants of several meetings at once', async () => {
      const first = await roomWithMeeting();
      const second = await roomWithMeeting();
      const empty = await roomWithMeeting();
      await store.putParticipant(first.meeting.id, participantFixture(bob, t0 + 2));
      await store.putParticipant(first.meeting.id, participantFixture(alice, t0 + 1));
      await store.putParticipant(second.meeting.id, participantFixture(bob, t0));
      const found = await store.listParticipantsOfMeetings([
        first.meeting.id,
        second.meeting.id,
        empty.meeting.id,
      ]);
      expect(found.get(first.meeting.id)?.map((participant) => participant.userId)).toEqual([alice, bob]);
      expect(found.get(second.meeting.id)?.map((participant) => participant.userId)).toEqual([bob]);
      expect(found.has(empty.meeting.id)).toBe(false);
      expect((await store.listParticipantsOfMeetings([])).size).toBe(0);
    });

    it('lists expired scheduled meetings that are not active, up to a limit', async () => {
      const now = new Date(t0 + 10_000);
      const expired = await roomWithMeeting(t0, {
        meetingType: 'scheduled',
        expiration: new Date(t0 + 10_000),
      });
      const later = await roomWithMeeting(t0 + 1, {
        meetingType: 'scheduled',
        expiration: new Date(t0 + 10_001),
      });
      const running = await roomWithMeeting(t0 + 2, { meetingType: 'scheduled', expiration: new Date(t0) });
      await store.setMeetingStarted(running.meeting.id, new Date(t0));
      await roomWithMeeting(t0 + 3);
      await roomWithMeeting(t0 + 4, { meetingType: 'scheduled' });
      expect((await store.listExpiredMeetings(now, 10)).map((meeting) => meeting.id)).toEqual([
        expired.meeting.id,
      ]);
      expect(await store.listExpiredMeetings(now, 0)).toEqual([]);
      expect(later.meeting.id).not.toBe(expired.meeting.id);
    });

    it('deletes a meeting with its participants and unlinks the room; a room deletion takes its meeting', async () => {
      const { room, meeting } = await roomWithMeeting();
      await store.putParticipant(meeting.id, participantFixture(alice, t0));
      expect(await store.deleteMeeting(meeting.id)).toBe(true);
      expect(await store.deleteMeeting(meeting.id)).toBe(false);
      expect(await store.getMeeting(meeting.id)).toBeUndefined();
      expect(await store.listParticipants(meeting.id)).toEqual([]);
      expect((await store.getRoom(room.id))?.meetingId).toBeNull();
      const other = await roomWithMeeting();
      const bobs = participantFixture(bob, t0);
      await store.putParticipant(other.meeting.id, bobs);
      await store.deleteRoom(other.room.id);
      expect(await store.getMeeting(other.meeting.id)).toBeUndefined();
      expect(await store.findMeetingsOfQueue(bob, bobs.queueId)).toEqual([]);
      expect(await store.getMeetingOfRoom(other.room.id)).toBeUndefined();
    });
  });
}
