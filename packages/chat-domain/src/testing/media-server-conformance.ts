import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MediaServer } from '../meetings/media-server.js';

/** Real offers for the media server under test (a fake accepts any `v=0` text). */
export interface MediaServerOffers {
  /** A client's audio offer (send and receive Opus). */
  audioOffer(): Promise<string>;
  /** A client's offer to publish video. */
  videoOffer(): Promise<string>;
  /** Closes the client connections made for the offers. */
  close(): Promise<void>;
}

/**
 * Registers the behaviour every {@link MediaServer} must have. `open` returns a fresh server,
 * `offers` makes client descriptions it accepts; the suite closes both.
 */
export function describeMediaServerConformance(
  name: string,
  open: () => Promise<MediaServer>,
  offers: () => MediaServerOffers,
): void {
  describe(`MediaServer conformance: ${name}`, () => {
    let media: MediaServer;
    let clients: MediaServerOffers;
    const meetingId = randomUUID();
    const alice = randomUUID();
    const bob = randomUUID();

    beforeEach(async () => {
      media = await open();
      clients = offers();
    });
    afterEach(async () => {
      await media.close();
      await clients.close();
    });

    it('opens and closes meetings and removes participants idempotently', async () => {
      await media.openMeeting(meetingId);
      await media.openMeeting(meetingId);
      await media.addParticipant(meetingId, alice);
      await media.addParticipant(meetingId, alice);
      await media.removeParticipant(meetingId, alice);
      await media.removeParticipant(meetingId, alice);
      await media.removeParticipant(randomUUID(), alice);
      await media.closeMeeting(meetingId);
      await media.closeMeeting(meetingId);
      expect(Array.isArray(media.iceServers())).toBe(true);
    });

    it('answers an audio offer of a participant and refuses one of a stranger', async () => {
      await media.addParticipant(meetingId, alice);
      const answer = await media.answerAudioOffer(meetingId, alice, await clients.audioOffer());
      expect(answer.startsWith('v=0')).toBe(true);
      await media.setAudioEnabled(meetingId, alice, true);
      await expect(media.answerAudioOffer(meetingId, bob, await clients.audioOffer())).rejects.toMatchObject({
        code: 'participant_not_found',
      });
    });

    it('refuses malformed session descriptions with invalid_sdp', async () => {
      await media.addParticipant(meetingId, alice);
      await expect(media.answerAudioOffer(meetingId, alice, 'hello')).rejects.toMatchObject({
        code: 'invalid_sdp',
      });
      await expect(media.publish(meetingId, alice, 'video', 'not sdp')).rejects.toMatchObject({
        code: 'invalid_sdp',
      });
    });

    it('offers a published stream to a subscriber with its mid, and only published streams', async () => {
      await media.addParticipant(meetingId, alice);
      await media.addParticipant(meetingId, bob);
      const answer = await media.publish(meetingId, alice, 'video', await clients.videoOffer());
      expect(answer.startsWith('v=0')).toBe(true);
      await expect(media.acceptSubscriptionAnswer(meetingId, bob, 'v=0\r\n')).rejects.toMatchObject({
        code: 'invalid_media_state',
      });
      const offer = await media.updateSubscriptions(meetingId, bob, {
        subscribe: [{ userId: alice, type: 'video' }],
        unsubscribe: [],
      });
      expect(offer.sdp.startsWith('v=0')).toBe(true);
      expect(offer.streams).toEqual([{ userId: alice, type: 'video', mid: expect.any(String) }]);
      await expect(
        media.updateSubscriptions(meetingId, bob, {
          subscribe: [{ userId: alice, type: 'screen' }],
          unsubscribe: [],
        }),
      ).rejects.toMatchObject({ code: 'stream_not_found' });
      await media.setStreamEnabled(meetingId, alice, 'video', false);
      await media.setStreamEnabled(meetingId, alice, 'screen', false);
    });

    it('forgets every participant of a closed meeting', async () => {
      await media.addParticipant(meetingId, alice);
      await media.closeMeeting(meetingId);
      await expect(
        media.answerAudioOffer(meetingId, alice, await clients.audioOffer()),
      ).rejects.toMatchObject({
        code: 'participant_not_found',
      });
    });
  });
}
