import { ChatError } from '../errors.js';
import { refuseUnknownOptions } from '../option-schemas.js';
import type { MediaServer, MediaServerEvent, MediaStreamRef } from './media-server.js';
import type { IceServerConfig, MediaType } from './meeting-model.js';

/** What the in-memory media server knows of one participant. */
export interface MemoryMediaParticipant {
  audioConnected: boolean;
  audioEnabled: boolean;
  published: Map<MediaType, { enabled: boolean }>;
  /** Watched streams as `<userId>/<type>`, in mid order. */
  watching: string[];
  offerPending: boolean;
}

/** A {@link MediaServer} without media, for domain tests: it records state and answers placeholder SDP. */
export interface MemoryMediaServer extends MediaServer {
  /** Open meetings and their participants. */
  readonly meetings: ReadonlyMap<string, ReadonlyMap<string, MemoryMediaParticipant>>;
  /** Emits a talking change as an SFU would. */
  emitTalking(meetingId: string, userId: string, talking: boolean): void;
  /** Emits a new dominant speaker as an SFU would. */
  emitDominantSpeaker(meetingId: string, userId: string): void;
  /** Drops the media of these meetings and says so, as a media host that stopped would. */
  emitMediaLost(meetingIds: string[]): void;
}

/** Options of {@link createMemoryMediaServer}. */
export interface MemoryMediaServerOptions {
  /** Participants per meeting before `meeting_full`. @default 100 */
  maxParticipants?: number;
  iceServers?: IceServerConfig[];
}

const placeholderSdp = (what: string) => `v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=${what}\r\nt=0 0\r\n`;

function requireSdp(sdp: string): void {
  if (!sdp.startsWith('v=0')) {
    throw new ChatError(
      'invalid_sdp',
      `expected a session description starting with v=0 but received ${JSON.stringify(sdp.slice(0, 20))}`,
    );
  }
}

/** Creates a {@link MemoryMediaServer}. A description is well formed when it starts with `v=0`. */
export function createMemoryMediaServer(options: MemoryMediaServerOptions = {}): MemoryMediaServer {
  refuseUnknownOptions(options, ['maxParticipants', 'iceServers'], 'createMemoryMediaServer');
  const maxParticipants = options.maxParticipants ?? 100;
  const meetings = new Map<string, Map<string, MemoryMediaParticipant>>();
  const listeners = new Set<(event: MediaServerEvent) => void>();
  const talking = new Map<string, Set<string>>();
  const dominant = new Map<string, string>();

  const participant = (meetingId: string, userId: string): MemoryMediaParticipant => {
    const found = meetings.get(meetingId)?.get(userId);
    if (found === undefined) {
      throw new ChatError(
        'participant_not_found',
        `expected ${userId} to have media in meeting ${meetingId} but it has none`,
      );
    }
    return found;
  };
  const key = (stream: MediaStreamRef) => `${stream.userId}/${stream.type}`;

  return {
    meetings,
    iceServers: () => options.iceServers ?? [],
    async openMeeting(meetingId) {
      if (!meetings.has(meetingId)) meetings.set(meetingId, new Map());
    },
    async closeMeeting(meetingId) {
      meetings.delete(meetingId);
      talking.delete(meetingId);
    },
    async addParticipant(meetingId, userId) {
      const meeting = meetings.get(meetingId) ?? new Map<string, MemoryMediaParticipant>();
      meetings.set(meetingId, meeting);
      meeting.delete(userId);
      if (meeting.size >= maxParticipants) {
        throw new ChatError(
          'meeting_full',
          `expected at most ${maxParticipants} participants but the meeting is full`,
        );
      }
      meeting.set(userId, {
        audioConnected: false,
        audioEnabled: false,
        published: new Map(),
        watching: [],
        offerPending: false,
      });
    },
    async removeParticipant(meetingId, userId) {
      talking.get(meetingId)?.delete(userId);
      const meeting = meetings.get(meetingId);
      meeting?.delete(userId);
      for (const other of meeting?.values() ?? []) {
        other.watching = other.watching.filter((entry) => !entry.startsWith(`${userId}/`));
      }
    },
    async answerAudioOffer(meetingId, userId, offer) {
      const found = participant(meetingId, userId);
      requireSdp(offer);
      found.audioConnected = true;
      return placeholderSdp('audio answer');
    },
    async setAudioEnabled(meetingId, userId, enabled) {
      participant(meetingId, userId).audioEnabled = enabled;
    },
    async publish(meetingId, userId, type, offer) {
      const found = participant(meetingId, userId);
      requireSdp(offer);
      found.published.set(type, { enabled: true });
      return placeholderSdp(`${type} answer`);
    },
    async setStreamEnabled(meetingId, userId, type, enabled) {
      const stream = participant(meetingId, userId).published.get(type);
      if (stream !== undefined) stream.enabled = enabled;
    },
    async updateSubscriptions(meetingId, userId, changes) {
      const found = participant(meetingId, userId);
      for (const stream of changes.subscribe) {
        if (!meetings.get(meetingId)?.get(stream.userId)?.published.has(stream.type)) {
          throw new ChatError(
            'stream_not_found',
            `expected ${stream.userId} to publish ${stream.type} but it does not`,
          );
        }
      }
      const removed = new Set(changes.unsubscribe.map(key));
      found.watching = found.watching.filter((entry) => !removed.has(entry));
      for (const stream of changes.subscribe)
        if (!found.watching.includes(key(stream))) found.watching.push(key(stream));
      found.offerPending = true;
      return {
        sdp: placeholderSdp('subscription offer'),
        streams: found.watching.map((entry, index) => {
          const [streamUserId = '', type = 'video'] = entry.split('/');
          return { userId: streamUserId, type: type as MediaType, mid: String(index) };
        }),
      };
    },
    async acceptSubscriptionAnswer(meetingId, userId, answer) {
      const found = participant(meetingId, userId);
      if (!found.offerPending)
        throw new ChatError(
          'invalid_media_state',
          'expected a subscription offer to answer but there is none pending',
        );
      requireSdp(answer);
      found.offerPending = false;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    talkingParticipants: (meetingId) => [...(talking.get(meetingId) ?? [])],
    dominantSpeaker: (meetingId) => dominant.get(meetingId),
    emitDominantSpeaker(meetingId, userId) {
      dominant.set(meetingId, userId);
      for (const listener of listeners) listener({ type: 'dominant-speaker', meetingId, userId });
    },
    emitTalking(meetingId, userId, isTalking) {
      const set = talking.get(meetingId) ?? new Set<string>();
      if (isTalking) set.add(userId);
      else set.delete(userId);
      talking.set(meetingId, set);
      for (const listener of listeners) listener({ type: 'talking', meetingId, userId, talking: isTalking });
    },
    emitMediaLost(meetingIds) {
      for (const meetingId of meetingIds) {
        meetings.delete(meetingId);
        talking.delete(meetingId);
        dominant.delete(meetingId);
      }
      for (const listener of listeners) {
        listener({ type: 'media-lost', meetingIds, reason: 'media_server_failed' });
      }
    },
    async close() {
      meetings.clear();
    },
  };
}
