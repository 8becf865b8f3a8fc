import type { Actor } from '../model.js';
import type { RoomObserver } from '../ports/room-observer.js';
import { createMeetingContext } from './meeting-context.js';
import { createMeetingLifecycle } from './meeting-lifecycle.js';
import { createMeetingMedia } from './meeting-media.js';
import type { JoinMeetingResult, Meeting } from './meeting-model.js';
import {
  type MeetingServiceOptions,
  type ResolvedMeetingServiceOptions,
  resolveMeetingServiceOptions,
} from './meeting-options.js';
import { createMeetingParticipation } from './meeting-participation.js';

/**
 * Meetings of chat rooms on behalf of a user, with their media through the `MediaServer` port.
 * Checks run like the room API's: input shape (`invalid_input`), `meeting_not_found`, `not_a_member`,
 * then the meeting's rules. Media answers and offers travel as events to the participant's queue.
 */
export interface MeetingService {
  /** Meetings of the caller's rooms. */
  listMeetings(actor: Actor): Promise<Meeting[]>;
  /**
   * Creates the meeting of a room (NewMeetingData), inactive; any member may.
   * @throws ChatError `invalid_input`, `room_not_found`, `not_a_member`, `meeting_exists`
   */
  createMeeting(actor: Actor, body: unknown): Promise<Meeting>;
  /** @throws ChatError `meeting_not_found`, `not_a_member` */
  getMeeting(actor: Actor, meetingId: string): Promise<Meeting>;
  /** The meeting of a room. @throws ChatError `room_not_found`, `not_a_member`, `meeting_not_found` */
  getRoomMeeting(actor: Actor, roomId: string): Promise<Meeting>;
  /** Deletes a meeting, closing its media (any member). @throws ChatError `meeting_not_found`, `not_a_member` */
  deleteMeeting(actor: Actor, meetingId: string): Promise<void>;
  /** Starts a meeting; starting an active one changes nothing. @throws ChatError `meeting_not_found`, `not_a_member`, `media_failed` */
  startMeeting(actor: Actor, meetingId: string): Promise<Meeting>;
  /** Stops a meeting: every participant is out and its media closed. @throws ChatError `meeting_not_found`, `not_a_member` */
  stopMeeting(actor: Actor, meetingId: string): Promise<Meeting>;
  /**
   * Joins from the `/events` session `queueId` (JoinSettings); streams start off. Joining again from
   * another queue replaces the old session, which gets `MEETING_PARTICIPANT_CLASHED`.
   * @throws ChatError `invalid_input`, `meeting_not_found`, `not_a_member`, `meeting_not_active`, `already_participant`, `meeting_full`, `media_failed`
   */
  joinMeeting(
    actor: Actor,
    meetingId: string,
    queueId: string | undefined,
    body: unknown,
  ): Promise<JoinMeetingResult>;
  /** Leaves; a caller who is not a participant changes nothing. The last one out stops the meeting. @throws ChatError `meeting_not_found`, `not_a_member` */
  leaveMeeting(actor: Actor, meetingId: string): Promise<void>;
  /** An `/events` session closed: the user leaves the meetings joined from it. */
  queueClosed(userId: string, queueId: string): Promise<void>;
  /**
   * Answers the caller's audio offer with `MEETING_AUDIO_ANSWERED`.
   * @throws ChatError `invalid_input`, `meeting_not_found`, `not_a_member`, `participant_not_found`, `invalid_sdp`, `media_failed`
   */
  offerAudio(actor: Actor, meetingId: string, body: unknown): Promise<void>;
  /**
   * Unmutes or mutes the caller, or (owners) mutes `userToModerate` (AudioStreamSettings).
   * @throws ChatError `invalid_input`, `meeting_not_found`, `not_a_member`, `operation_not_allowed`, `not_an_owner`, `participant_not_found`
   */
  updateAudio(actor: Actor, meetingId: string, body: unknown): Promise<void>;
  /**
   * Publishes (with an offer, answered by `MEETING_SDP_ANSWERED`) or disables the camera or screen (MediaStreamSettings).
   * @throws ChatError `invalid_input`, `meeting_not_found`, `not_a_member`, `participant_not_found`, `invalid_sdp`, `media_failed`
   */
  updateMedia(actor: Actor, meetingId: string, body: unknown): Promise<void>;
  /**
   * Changes what the caller watches (SubscriptionUpdates): `MEETING_SDP_OFFERED` and `MEETING_PARTICIPANT_SUBSCRIBED` follow.
   * `iceRestart: true` (with or without changes) makes the offer restart ICE on the subscribe connection.
   * @throws ChatError `invalid_input`, `meeting_not_found`, `not_a_member`, `participant_not_found`, `stream_not_found`, `media_failed`
   */
  updateSubscriptions(actor: Actor, meetingId: string, body: unknown): Promise<void>;
  /**
   * Applies the caller's answer to the last subscription offer.
   * @throws ChatError `invalid_input`, `meeting_not_found`, `not_a_member`, `participant_not_found`, `invalid_media_state`, `invalid_sdp`
   */
  answerMedia(actor: Actor, meetingId: string, body: unknown): Promise<void>;
  /** Deletes scheduled meetings past their expiration that nobody is in; returns how many. */
  removeExpiredMeetings(): Promise<number>;
  /** Stops every meeting marked active (their media did not survive a restart); returns how many. */
  stopAllActive(): Promise<number>;
  /** Pass to `createChatService({ roomObserver })`: room deletion deletes the meeting, a removed member leaves it. */
  readonly roomObserver: RoomObserver;
  readonly options: ResolvedMeetingServiceOptions;
  /** Stops listening to the media server (does not close it). */
  close(): void;
}

/** Creates the meeting service; options are parsed once. @throws ChatError `invalid_input` for bad options */
export function createMeetingService(options: MeetingServiceOptions): MeetingService {
  const resolved = resolveMeetingServiceOptions(options);
  const context = createMeetingContext(resolved);
  const lifecycle = createMeetingLifecycle(context);
  const participation = createMeetingParticipation(context, lifecycle.internals);
  const stopListening = resolved.media.onEvent((event) => {
    if (event.type === 'media-lost') {
      void context.background(`stopping meetings whose media is gone: ${event.meetingIds.join(', ')}`, () =>
        lifecycle.internals.stopLostMeetings(event.meetingIds, event.reason),
      );
      return;
    }
    if (event.type === 'dominant-speaker') {
      void context.background(`announcing the dominant speaker of meeting ${event.meetingId}`, async () => {
        await context.notify(await context.participants(event.meetingId), {
          type: 'MEETING_DOMINANT_SPEAKER',
          meetingId: event.meetingId,
          userId: event.userId,
        });
      });
      return;
    }
    void context.background(`announcing talking in meeting ${event.meetingId}`, async () => {
      await context.notify(await context.participants(event.meetingId), {
        type: 'MEETING_PARTICIPANT_TALKING',
        meetingId: event.meetingId,
        userId: event.userId,
        isTalking: event.talking,
      });
    });
  });
  return {
    ...lifecycle.operations,
    ...participation,
    ...createMeetingMedia(context),
    options: resolved,
    close: () => stopListening(),
  };
}
