import type { EventMediaType, MeetingStopReason } from './meeting-model.js';

/** Which mid of a subscriber's connection carries whose stream. */
export interface SubscribedStreamEvent {
  type: EventMediaType;
  userId: string;
  mid: string;
}

/**
 * Meeting events (reference §12, CONSTANT_CASE names of 0.7.1). Lifecycle events go to the room's
 * members; stream changes and talking to the meeting's participants; answers, offers, subscriptions
 * and clashes to one participant's queue.
 */
export type MeetingEventPayload =
  | { type: 'MEETING_CREATED'; meetingId: string; roomId: string }
  | { type: 'MEETING_DELETED'; meetingId: string }
  | { type: 'MEETING_STARTED'; meetingId: string; starterUser: string; startedAt: string }
  | { type: 'MEETING_STOPPED'; meetingId: string; reason?: MeetingStopReason }
  | { type: 'MEETING_PARTICIPANT_JOINED'; meetingId: string; userId: string }
  | { type: 'MEETING_PARTICIPANT_LEFT'; meetingId: string; userId: string }
  | { type: 'MEETING_PARTICIPANT_CLASHED'; meetingId: string }
  | {
      type: 'MEETING_AUDIO_STREAM_CHANGED';
      meetingId: string;
      userId: string;
      /** Present when a moderator muted the user. */
      moderatorId?: string;
      active: boolean;
    }
  | {
      type: 'MEETING_MEDIA_STREAM_CHANGED';
      meetingId: string;
      userId: string;
      mediaType: EventMediaType;
      active: boolean;
    }
  | { type: 'MEETING_AUDIO_ANSWERED'; meetingId: string; userId: string; sdp: string }
  | {
      type: 'MEETING_SDP_ANSWERED';
      meetingId: string;
      userId: string;
      mediaType: EventMediaType;
      sdp: string;
    }
  | { type: 'MEETING_SDP_OFFERED'; meetingId: string; userId: string; mediaType: EventMediaType; sdp: string }
  | { type: 'MEETING_PARTICIPANT_TALKING'; meetingId: string; userId: string; isTalking: boolean }
  | { type: 'MEETING_DOMINANT_SPEAKER'; meetingId: string; userId: string }
  | {
      type: 'MEETING_PARTICIPANT_SUBSCRIBED';
      meetingId: string;
      userId: string;
      streams: SubscribedStreamEvent[];
    };
