import {
  ChatError,
  type ChatErrorCode,
  type MediaServer,
  type MediaServerEvent,
  type MediaType,
} from '@collab-suite/chat-domain';
import { isSfuError, type Router, type Session, type Sfu, type SfuErrorCode } from '@collab-suite/webrtc-sfu';

/** What each SFU error means for a meeting request. */
const chatCodeOfSfu: Record<SfuErrorCode, ChatErrorCode> = {
  invalid_options: 'media_failed',
  invalid_sdp: 'invalid_sdp',
  unsupported_media: 'invalid_sdp',
  negotiation_failed: 'invalid_sdp',
  invalid_state: 'invalid_media_state',
  closed: 'participant_not_found',
  router_exists: 'media_failed',
  session_exists: 'media_failed',
  session_not_found: 'participant_not_found',
  stream_not_found: 'stream_not_found',
  limit_exceeded: 'meeting_full',
};

async function translated<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isSfuError(error)) throw error;
    throw new ChatError(chatCodeOfSfu[error.code], error.message, {
      cause: error,
      ...(error.details ? { details: error.details } : {}),
    });
  }
}

/**
 * The meeting port on the in-process SFU: one router per meeting (the audio bridge and forwarding),
 * one session per participant. SFU errors become the ChatErrors they mean (a bad offer is `invalid_sdp`).
 */
export function createSfuMediaServer(sfu: Sfu): MediaServer {
  const listeners = new Set<(event: MediaServerEvent) => void>();
  const talking = new Map<string, Set<string>>();

  const routerOf = (meetingId: string): Router => {
    const existing = sfu.getRouter(meetingId);
    if (existing !== undefined) return existing;
    const router = sfu.createRouter(meetingId);
    const talkingNow = new Set<string>();
    talking.set(meetingId, talkingNow);
    router.on('talking', ({ participantId, talking: isTalking }) => {
      if (isTalking) talkingNow.add(participantId);
      else talkingNow.delete(participantId);
      for (const listener of listeners) {
        listener({ type: 'talking', meetingId, userId: participantId, talking: isTalking });
      }
    });
    router.on('dominantspeaker', ({ participantId }) => {
      for (const listener of listeners)
        listener({ type: 'dominant-speaker', meetingId, userId: participantId });
    });
    router.on('sessionclose', (closed) => talkingNow.delete(closed.participantId));
    router.on('close', () => talking.delete(meetingId));
    return router;
  };
  const session = (meetingId: string, userId: string): Session => {
    const found = sfu.getRouter(meetingId)?.getSession(userId);
    if (found === undefined) {
      throw new ChatError(
        'participant_not_found',
        `expected ${userId} to have media in meeting ${meetingId} but it has none: join first`,
      );
    }
    return found;
  };

  return {
    iceServers: () => sfu.iceServers.map((server) => ({ ...server })),
    openMeeting: (meetingId) => translated(() => void routerOf(meetingId)),
    async closeMeeting(meetingId) {
      sfu.getRouter(meetingId)?.close();
    },
    addParticipant: (meetingId, userId) =>
      translated(() => {
        const router = routerOf(meetingId);
        router.getSession(userId)?.close();
        router.createSession(userId);
      }),
    async removeParticipant(meetingId, userId) {
      sfu.getRouter(meetingId)?.getSession(userId)?.close();
    },
    answerAudioOffer: (meetingId, userId, offer) =>
      translated(() => session(meetingId, userId).answerAudioOffer(offer)),
    setAudioEnabled: (meetingId, userId, enabled) =>
      translated(() => void session(meetingId, userId).setAudioEnabled(enabled)),
    publish: (meetingId, userId, type: MediaType, offer) =>
      translated(() => session(meetingId, userId).publish(type, offer)),
    setStreamEnabled: (meetingId, userId, type, enabled) =>
      translated(() => {
        const found = sfu.getRouter(meetingId)?.getSession(userId);
        if (found !== undefined) found.setStreamEnabled(type, enabled);
      }),
    updateSubscriptions: (meetingId, userId, changes) =>
      translated(async () => {
        const offer = await session(meetingId, userId).updateSubscriptions({
          subscribe: changes.subscribe.map((stream) => ({
            participantId: stream.userId,
            kind: stream.type,
            quality: stream.quality,
          })),
          unsubscribe: changes.unsubscribe.map((stream) => ({
            participantId: stream.userId,
            kind: stream.type,
          })),
          iceRestart: changes.iceRestart === true,
        });
        return {
          sdp: offer.sdp,
          streams: offer.streams.map((stream) => ({
            userId: stream.participantId,
            type: stream.kind,
            mid: stream.mid,
          })),
        };
      }),
    acceptSubscriptionAnswer: (meetingId, userId, answer) =>
      translated(() => session(meetingId, userId).acceptSubscriptionAnswer(answer)),
    talkingParticipants: (meetingId) => [...(talking.get(meetingId) ?? [])],
    dominantSpeaker: (meetingId) => sfu.getRouter(meetingId)?.dominantSpeaker,
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      sfu.close();
      listeners.clear();
    },
  };
}
