import { parseInput } from '../inputs.js';
import type { Actor } from '../model.js';
import type { MeetingContext } from './meeting-context.js';
import {
  audioStreamSettingsSchema,
  mediaStreamSettingsSchema,
  sessionDescriptionSchema,
  subscriptionUpdatesSchema,
} from './meeting-inputs.js';
import type { MeetingRecord, ParticipantRecord } from './meeting-model.js';
import { audioTarget, eventMediaType, streamFlag } from './meeting-rules.js';

/** Audio, camera and screen negotiation and switches of a participant. */
export function createMeetingMedia(context: MeetingContext) {
  const { store, media } = context;

  async function asParticipant(
    actor: Actor,
    meetingId: string,
  ): Promise<{ meeting: MeetingRecord; participant: ParticipantRecord }> {
    const { meeting } = await context.meetingAsMember(actor, meetingId);
    return { meeting, participant: await context.requireParticipant(meeting, actor.userId) };
  }

  /**
   * Records a stream switch the media already made; when the write fails (PostgreSQL away, or the
   * lock passed to another node: an older fencing token), the media is switched back, so it keeps
   * agreeing with the recorded flags, and the error goes to the caller.
   */
  async function writeOrUndo(write: () => Promise<unknown>, undoing: string, undo: () => Promise<unknown>) {
    try {
      await write();
    } catch (error) {
      await context.background(undoing, undo);
      throw error;
    }
  }

  async function offerAudio(actor: Actor, meetingId: string, body: unknown): Promise<void> {
    const { meeting, participant } = await asParticipant(actor, meetingId);
    const { sdp } = parseInput(sessionDescriptionSchema, body, 'audio offer');
    const answer = await context.mediaCall('answer the audio offer', () =>
      media.answerAudioOffer(meeting.id, actor.userId, sdp),
    );
    await context.notify([{ userId: actor.userId, queueId: participant.queueId }], {
      type: 'MEETING_AUDIO_ANSWERED',
      meetingId: meeting.id,
      userId: actor.userId,
      sdp: answer,
    });
  }

  async function updateAudio(actor: Actor, meetingId: string, body: unknown): Promise<void> {
    const { meeting, caller } = await context.meetingAsMember(actor, meetingId);
    const settings = parseInput(audioStreamSettingsSchema, body, 'audio settings');
    const target = audioTarget(caller, settings);
    await context.locked(meeting.id, async (fence) => {
      const participant = await context.requireParticipant(meeting, target.userId);
      if (participant.audioStreamEnabled === settings.enabled) return;
      await context.mediaCall('switch the audio', () =>
        media.setAudioEnabled(meeting.id, target.userId, settings.enabled),
      );
      await writeOrUndo(
        () =>
          store.updateParticipantStreams(
            meeting.id,
            target.userId,
            { audioStreamEnabled: settings.enabled },
            fence,
          ),
        'setting the audio back',
        () => media.setAudioEnabled(meeting.id, target.userId, !settings.enabled),
      );
      await context.notify(await context.participants(meeting.id), {
        type: 'MEETING_AUDIO_STREAM_CHANGED',
        meetingId: meeting.id,
        userId: target.userId,
        ...(target.moderatorId === undefined ? {} : { moderatorId: target.moderatorId }),
        active: settings.enabled,
      });
    });
  }

  async function updateMedia(actor: Actor, meetingId: string, body: unknown): Promise<void> {
    const { meeting, participant } = await asParticipant(actor, meetingId);
    const settings = parseInput(mediaStreamSettingsSchema, body, 'media stream settings');
    const mediaType = eventMediaType(settings.type);
    if (settings.enabled && settings.sdp !== undefined) {
      const offer = settings.sdp;
      const answer = await context.mediaCall(`publish the ${settings.type}`, () =>
        media.publish(meeting.id, actor.userId, settings.type, offer),
      );
      await context.notify([{ userId: actor.userId, queueId: participant.queueId }], {
        type: 'MEETING_SDP_ANSWERED',
        meetingId: meeting.id,
        userId: actor.userId,
        mediaType,
        sdp: answer,
      });
    }
    await context.locked(meeting.id, async (fence) => {
      const current = await context.requireParticipant(meeting, actor.userId);
      if (current[streamFlag(settings.type)] === settings.enabled) return;
      if (!settings.enabled) {
        await context.mediaCall(`disable the ${settings.type}`, () =>
          media.setStreamEnabled(meeting.id, actor.userId, settings.type, false),
        );
      }
      await writeOrUndo(
        () =>
          store.updateParticipantStreams(
            meeting.id,
            actor.userId,
            { [streamFlag(settings.type)]: settings.enabled },
            fence,
          ),
        `enabling the ${settings.type} again`,
        // Enabling switched no media under the lock (publishing did, before it).
        async () => {
          if (!settings.enabled) await media.setStreamEnabled(meeting.id, actor.userId, settings.type, true);
        },
      );
      await context.notify(await context.participants(meeting.id), {
        type: 'MEETING_MEDIA_STREAM_CHANGED',
        meetingId: meeting.id,
        userId: actor.userId,
        mediaType,
        active: settings.enabled,
      });
    });
  }

  async function updateSubscriptions(actor: Actor, meetingId: string, body: unknown): Promise<void> {
    const { meeting, participant } = await asParticipant(actor, meetingId);
    const updates = parseInput(subscriptionUpdatesSchema, body, 'subscription updates');
    const offer = await context.mediaCall('update the subscriptions', () =>
      media.updateSubscriptions(meeting.id, actor.userId, updates),
    );
    const recipient = [{ userId: actor.userId, queueId: participant.queueId }];
    await context.notify(recipient, {
      type: 'MEETING_SDP_OFFERED',
      meetingId: meeting.id,
      userId: actor.userId,
      mediaType: 'VIDEO',
      sdp: offer.sdp,
    });
    await context.notify(recipient, {
      type: 'MEETING_PARTICIPANT_SUBSCRIBED',
      meetingId: meeting.id,
      userId: actor.userId,
      streams: offer.streams.map((stream) => ({
        type: eventMediaType(stream.type),
        userId: stream.userId,
        mid: stream.mid,
      })),
    });
  }

  async function answerMedia(actor: Actor, meetingId: string, body: unknown): Promise<void> {
    const { meeting } = await asParticipant(actor, meetingId);
    const { sdp } = parseInput(sessionDescriptionSchema, body, 'subscription answer');
    await context.mediaCall('apply the subscription answer', () =>
      media.acceptSubscriptionAnswer(meeting.id, actor.userId, sdp),
    );
  }

  return { offerAudio, updateAudio, updateMedia, updateSubscriptions, answerMedia };
}
