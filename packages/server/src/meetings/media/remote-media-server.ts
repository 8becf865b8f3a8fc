import {
  ChatError,
  type IceServerConfig,
  type MediaServer,
  type MediaServerEvent,
  type MediaSubscriptionOffer,
} from '@collab-suite/chat-domain';
import type { MediaHostMessage, MediaMethod, MediaReply } from './media-protocol.js';
import { replyError } from './media-protocol.js';

/** How a {@link createRemoteMediaServer} reaches the host that runs the media. */
export interface MediaHostLink {
  /** Sends a command; the reply comes back through the `receive` function given to the server. */
  send(command: { id: number; method: MediaMethod; args: unknown[] }): void;
  /** Stops the host and the link. */
  close(): Promise<void>;
}

/** A MediaServer whose work happens elsewhere, plus what the link feeds into it. */
export interface RemoteMediaServer extends MediaServer {
  /** Hands over a reply or a host message that arrived on the link. */
  receive(message: MediaReply | MediaHostMessage): void;
  /**
   * Notes who is talking from an event another API node tells the participants about, without
   * telling listeners: `talkingParticipants` then answers the same on every API node.
   */
  observe(event: MediaServerEvent): void;
  /**
   * Fails every call still waiting for a reply and forgets who was talking: the host is gone, and
   * with it the media of its meetings.
   */
  hostLost(reason: string): void;
  /** Calls sent and not answered yet. */
  readonly pendingCalls: number;
}

/**
 * The MediaServer port over a link to a media host: each method becomes a numbered command whose
 * reply settles it; the host's talking events are kept here, so `talkingParticipants` answers at once.
 */
export function createRemoteMediaServer(options: {
  link: MediaHostLink;
  iceServers: IceServerConfig[];
}): RemoteMediaServer {
  const { link } = options;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const listeners = new Set<(event: MediaServerEvent) => void>();
  const talking = new Map<string, Set<string>>();
  const dominant = new Map<string, string>();
  let nextId = 1;
  let closed = false;

  const call = <Value>(method: MediaMethod, ...args: unknown[]): Promise<Value> => {
    if (closed) return Promise.reject(new ChatError('media_failed', 'the media server is closed'));
    const id = nextId++;
    return new Promise<Value>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      link.send({ id, method, args });
    });
  };
  const noteTalking = (event: MediaServerEvent) => {
    if (event.type === 'media-lost') {
      for (const meetingId of event.meetingIds) {
        talking.delete(meetingId);
        dominant.delete(meetingId);
      }
      return;
    }
    if (event.type === 'dominant-speaker') {
      dominant.set(event.meetingId, event.userId);
      return;
    }
    let talkingNow = talking.get(event.meetingId);
    if (talkingNow === undefined) {
      talkingNow = new Set();
      talking.set(event.meetingId, talkingNow);
    }
    if (event.talking) talkingNow.add(event.userId);
    else talkingNow.delete(event.userId);
  };

  return {
    iceServers: () => options.iceServers.map((server) => ({ ...server })),
    async openMeeting(meetingId) {
      await call('openMeeting', meetingId);
    },
    async closeMeeting(meetingId) {
      talking.delete(meetingId);
      dominant.delete(meetingId);
      await call('closeMeeting', meetingId);
    },
    async addParticipant(meetingId, userId) {
      await call('addParticipant', meetingId, userId);
    },
    async removeParticipant(meetingId, userId) {
      talking.get(meetingId)?.delete(userId);
      if (dominant.get(meetingId) === userId) dominant.delete(meetingId);
      await call('removeParticipant', meetingId, userId);
    },
    answerAudioOffer: (meetingId, userId, offer) =>
      call<string>('answerAudioOffer', meetingId, userId, offer),
    async setAudioEnabled(meetingId, userId, enabled) {
      await call('setAudioEnabled', meetingId, userId, enabled);
    },
    publish: (meetingId, userId, type, offer) => call<string>('publish', meetingId, userId, type, offer),
    async setStreamEnabled(meetingId, userId, type, enabled) {
      await call('setStreamEnabled', meetingId, userId, type, enabled);
    },
    updateSubscriptions: (meetingId, userId, changes) =>
      call<MediaSubscriptionOffer>('updateSubscriptions', meetingId, userId, changes),
    async acceptSubscriptionAnswer(meetingId, userId, answer) {
      await call('acceptSubscriptionAnswer', meetingId, userId, answer);
    },
    talkingParticipants: (meetingId) => [...(talking.get(meetingId) ?? [])],
    dominantSpeaker: (meetingId) => dominant.get(meetingId),
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    receive(message) {
      if ('id' in message) {
        const waiting = pending.get(message.id);
        if (waiting === undefined) return;
        pending.delete(message.id);
        if (message.ok) waiting.resolve(message.value);
        else waiting.reject(replyError(message));
        return;
      }
      if (message.kind !== 'event') return;
      noteTalking(message.event);
      for (const listener of listeners) listener(message.event);
    },
    observe: (event) => noteTalking(event),
    hostLost(reason) {
      talking.clear();
      dominant.clear();
      const waiting = [...pending.values()];
      pending.clear();
      for (const call of waiting) call.reject(new ChatError('media_failed', reason));
    },
    get pendingCalls() {
      return pending.size;
    },
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      await link.close();
      this.hostLost('the media server is closed');
    },
  };
}
