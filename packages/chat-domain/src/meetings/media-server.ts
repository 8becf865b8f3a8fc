import type { IceServerConfig, MediaQuality, MediaType, MeetingStopReason } from './meeting-model.js';

/** A stream to watch: whose, and which kind. */
export interface MediaStreamRef {
  userId: string;
  type: MediaType;
}

/** A stream to watch with an optional preferred quality (the highest simulcast layer wanted). */
export interface MediaSubscribeRef extends MediaStreamRef {
  quality?: MediaQuality | undefined;
}

/** The media server's offer after a subscription change, with the mid carrying each stream. */
export interface MediaSubscriptionOffer {
  sdp: string;
  streams: (MediaStreamRef & { mid: string })[];
}

/** Something the media server noticed on its own. */
export type MediaServerEvent =
  | { type: 'talking'; meetingId: string; userId: string; talking: boolean }
  /** Another participant became the meeting's dominant speaker (the audio bridge's hysteresis). */
  | { type: 'dominant-speaker'; meetingId: string; userId: string }
  /**
   * The media of these meetings is gone (the process or node holding it stopped): the meetings
   * must be stopped, and their participants told why.
   */
  | { type: 'media-lost'; meetingIds: string[]; reason: MeetingStopReason };

/**
 * Where the media of meetings lives (an SFU with an audio bridge). The domain decides who may do
 * what; this port only carries it out. Methods that take a session description fail with
 * ChatError `invalid_sdp` when it is malformed or asks for media the server cannot carry, and
 * `media_failed` when the server itself fails.
 */
export interface MediaServer {
  /** STUN and TURN servers clients should use for their connections. */
  iceServers(): IceServerConfig[];
  /** Prepares a meeting's media (audio mix, forwarding). Idempotent. @throws ChatError `media_failed` */
  openMeeting(meetingId: string): Promise<void>;
  /** Closes every connection of a meeting. Idempotent. */
  closeMeeting(meetingId: string): Promise<void>;
  /**
   * Adds a participant, muted and publishing nothing; an earlier session of the same user is closed
   * first. Opens the meeting when needed.
   * @throws ChatError `meeting_full`, `media_failed`
   */
  addParticipant(meetingId: string, userId: string): Promise<void>;
  /** Closes a participant's connections. Idempotent. */
  removeParticipant(meetingId: string, userId: string): Promise<void>;
  /**
   * Answers the participant's audio offer; the answer carries the mix of every other unmuted participant.
   * An offer of the same client connection with new ICE credentials restarts ICE on that connection.
   * @throws ChatError `participant_not_found`, `invalid_sdp`, `media_failed`
   */
  answerAudioOffer(meetingId: string, userId: string, offer: string): Promise<string>;
  /** Unmutes or mutes the participant in everyone else's mix. @throws ChatError `participant_not_found` */
  setAudioEnabled(meetingId: string, userId: string, enabled: boolean): Promise<void>;
  /**
   * Answers the participant's offer to publish a camera or screen stream, and enables it. An offer
   * of the same client connection with new ICE credentials restarts ICE on that connection.
   * @throws ChatError `participant_not_found`, `invalid_sdp`, `media_failed`
   */
  publish(meetingId: string, userId: string, type: MediaType, offer: string): Promise<string>;
  /** Stops or resumes forwarding a published stream; disabling an unpublished one does nothing. */
  setStreamEnabled(meetingId: string, userId: string, type: MediaType, enabled: boolean): Promise<void>;
  /**
   * Changes what the participant watches and returns the server's new offer; with `iceRestart` the
   * offer also restarts ICE on the participant's subscribe connection (new credentials, candidates
   * checked again), for a client whose network changed.
   * @throws ChatError `participant_not_found`, `stream_not_found`, `media_failed`
   */
  updateSubscriptions(
    meetingId: string,
    userId: string,
    changes: { subscribe: MediaSubscribeRef[]; unsubscribe: MediaStreamRef[]; iceRestart?: boolean },
  ): Promise<MediaSubscriptionOffer>;
  /**
   * Applies the participant's answer to the last subscription offer.
   * @throws ChatError `participant_not_found`, `invalid_media_state`, `invalid_sdp`, `media_failed`
   */
  acceptSubscriptionAnswer(meetingId: string, userId: string, answer: string): Promise<void>;
  /** Participants talking now, so that someone joining learns it before the next change. */
  talkingParticipants(meetingId: string): string[];
  /** The meeting's dominant speaker now, if anyone talked long enough, for someone joining. */
  dominantSpeaker(meetingId: string): string | undefined;
  /** Listens to {@link MediaServerEvent}s; returns a function that stops listening. */
  onEvent(listener: (event: MediaServerEvent) => void): () => void;
  /** Closes every meeting. Idempotent. */
  close(): Promise<void>;
}
