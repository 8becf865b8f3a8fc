import { z } from 'zod';
import { caseInsensitiveEnum, storableText, uuid } from '../inputs.js';
import { mediaQualities, mediaTypes, meetingTypes } from './meeting-model.js';

/** Longest meeting name, like a room name. */
export const maxMeetingNameLength = 128;

/**
 * Longest session description accepted: a browser's offer is a few kilobytes, so 64 KiB is a
 * mistake or abuse (the SFU applies the same bound).
 */
export const maxSdpBytes = 64 * 1024;

const sdp = z
  .string()
  .min(1, 'expected a session description')
  .refine((value) => Buffer.byteLength(value) <= maxSdpBytes, {
    message: `expected a session description of at most ${maxSdpBytes} bytes`,
  });

/** Body of `createMeeting` (NewMeetingData): `roomId` is required, the rest optional. */
export const newMeetingSchema = z.object({
  roomId: uuid,
  name: storableText(z.string().max(maxMeetingNameLength)).optional(),
  meetingType: caseInsensitiveEnum(meetingTypes).default('permanent'),
  expiration: z.iso.datetime({ offset: true }).optional(),
});
/** Parsed {@link newMeetingSchema}. */
export type NewMeetingInput = z.output<typeof newMeetingSchema>;

/** Body of `joinMeeting` (JoinSettings). Both flags are required; streams still start off, as in the original. */
export const joinSettingsSchema = z.object({
  audioStreamEnabled: z.boolean(),
  videoStreamEnabled: z.boolean(),
});

/** The `queue-id` header of a join: the `/events` session's id. */
export const queueIdSchema = uuid;

/** Body of `updateMedia` (MediaStreamSettings); `sdp` is the offer and required when enabling. */
export const mediaStreamSettingsSchema = z
  .object({
    type: caseInsensitiveEnum(mediaTypes),
    enabled: z.boolean(),
    sdp: sdp.optional(),
  })
  .refine((settings) => !settings.enabled || settings.sdp !== undefined, {
    message: 'expected an `sdp` offer when enabling a stream',
    path: ['sdp'],
  });
/** Parsed {@link mediaStreamSettingsSchema}. */
export type MediaStreamSettingsInput = z.output<typeof mediaStreamSettingsSchema>;

/** Body of `updateAudio` (AudioStreamSettings). */
export const audioStreamSettingsSchema = z.object({
  enabled: z.boolean(),
  userToModerate: uuid.optional(),
});
/** Parsed {@link audioStreamSettingsSchema}. */
export type AudioStreamSettingsInput = z.output<typeof audioStreamSettingsSchema>;

/** Body of `offerAudio` and `answerMedia` (SessionDescriptionProtocol). */
export const sessionDescriptionSchema = z.object({ sdp });

const mediaStream = z.object({ userId: uuid, type: caseInsensitiveEnum(mediaTypes) });

/** A stream to watch, with an optional preferred quality (an extension; the original has none). */
const subscribedStream = mediaStream.extend({ quality: caseInsensitiveEnum(mediaQualities).optional() });

/**
 * Body of `updateSubscriptions` (SubscriptionUpdates): both lists required, not both empty unless
 * `iceRestart` (ours, optional) asks the server to offer an ICE restart of the subscribe connection.
 * A stream to subscribe may name a preferred `quality`; subscribing again to a watched stream changes it.
 */
export const subscriptionUpdatesSchema = z
  .object({
    subscribe: z.array(subscribedStream).max(100),
    unsubscribe: z.array(mediaStream).max(100),
    iceRestart: z.boolean().optional(),
  })
  .refine(
    (updates) => updates.subscribe.length + updates.unsubscribe.length > 0 || updates.iceRestart === true,
    { message: 'expected at least one stream to subscribe or unsubscribe, or iceRestart: true' },
  );
/** Parsed {@link subscriptionUpdatesSchema}. */
export type SubscriptionUpdatesInput = z.output<typeof subscriptionUpdatesSchema>;
