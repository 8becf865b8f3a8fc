/** The two kinds of meeting: a permanent one is never removed automatically. */
export const meetingTypes = ['permanent', 'scheduled'] as const;

/** One of {@link meetingTypes}. */
export type MeetingType = (typeof meetingTypes)[number];

/** The streams a participant publishes besides audio. */
export const mediaTypes = ['video', 'screen'] as const;

/** One of {@link mediaTypes}. */
export type MediaType = (typeof mediaTypes)[number];

/**
 * Preferred quality of a watched stream (an extension of the original API): which simulcast layer
 * at most the media server forwards. Without it, the highest the subscriber's bandwidth allows.
 */
export const mediaQualities = ['low', 'medium', 'high'] as const;
/** One of {@link mediaQualities}. */
export type MediaQuality = (typeof mediaQualities)[number];

/**
 * Why a meeting stopped when nobody stopped it: `media_server_failed`, the process or node holding
 * its media stopped. A meeting stopped by a person carries no reason.
 */
export type MeetingStopReason = 'media_server_failed';

/** How events spell a {@link MediaType}: upper case, as the original. */
export type EventMediaType = 'VIDEO' | 'SCREEN';

/** A meeting as stored. */
export interface MeetingRecord {
  id: string;
  roomId: string;
  name: string;
  meetingType: MeetingType;
  /** When a scheduled meeting is no longer needed; null for permanent meetings or no expiration. */
  expiration: Date | null;
  active: boolean;
  /** Set while the meeting is active. */
  startedAt: Date | null;
  createdAt: Date;
}

/** A participant of a meeting as stored; a user is in a meeting once, from one queue. */
export interface ParticipantRecord {
  userId: string;
  /** The `/events` session (queue) that joined; events meant for this participant go there only. */
  queueId: string;
  audioStreamEnabled: boolean;
  videoStreamEnabled: boolean;
  screenStreamEnabled: boolean;
  joinedAt: Date;
}

/** Which stream flags {@link ChatStore.updateParticipantStreams} changes; absent ones are kept. */
export interface ParticipantStreamChanges {
  audioStreamEnabled?: boolean;
  videoStreamEnabled?: boolean;
  screenStreamEnabled?: boolean;
}

/** A participant as the API shows it. `moderator` means an owner of the meeting's room. */
export interface Participant {
  userId: string;
  userType: 'moderator' | 'registered';
  queueId: string;
  audioStreamEnabled: boolean;
  videoStreamEnabled: boolean;
  screenStreamEnabled: boolean;
  joinedAt: string;
}

/** A meeting as the API shows it; dates are ISO-8601 strings. */
export interface Meeting {
  id: string;
  name: string;
  roomId: string;
  active: boolean;
  participants: Participant[];
  createdAt: string;
  /** Present while the meeting is active. */
  startedAt?: string;
  meetingType: MeetingType;
  /** Present for scheduled meetings created with one. */
  expiration?: string;
}

/** The answer of a join. `ACCEPTED` is the only status (no waiting room); `iceServers` are for the client's connections. */
export interface JoinMeetingResult {
  status: 'ACCEPTED';
  iceServers: IceServerConfig[];
}

/** A STUN or TURN server in the shape of the browser's `RTCIceServer`. */
export interface IceServerConfig {
  urls: string | string[];
  username?: string;
  credential?: string;
}
