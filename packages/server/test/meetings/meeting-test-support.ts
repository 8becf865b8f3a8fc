import { AudioTestClient, VideoTestPublisher, VideoTestSubscriber } from '@collab-suite/webrtc-sfu/testing';
import {
  type ChatClient,
  type ChatDatabase,
  type ChatTestServer,
  type EventsClient,
  type JsonObject,
  startChatServer,
  users,
} from '../chat/chat-test-support.js';

/** SFU settings that keep every media connection on 127.0.0.1. */
export const loopbackMeetingEnv = {
  MEETING_ICE_HOST_ADDRESSES: '127.0.0.1',
  MEETING_ICE_ONLY_ADDRESSES: '127.0.0.1',
};

/** A user with an API client and an open `/events` session. */
export interface MeetingUser {
  userId: string;
  call: ChatClient;
  events: EventsClient;
  queueId: string;
  /** The next event of `type` (already received or coming) matching `where`. */
  next(type: string, where?: (event: JsonObject) => boolean, timeoutMs?: number): Promise<JsonObject>;
  /** Events of `type` received so far. */
  received(type: string): JsonObject[];
}

/** Opens `/events` for a user and wraps the calls. */
export async function meetingUser(server: ChatTestServer, userId: string): Promise<MeetingUser> {
  const events = await server.events(userId);
  return {
    userId,
    call: server.as(userId),
    events,
    queueId: String(events.messages[0]?.queueId),
    next: (type, where = () => true, timeoutMs = 10_000) =>
      events.next((message) => message.type === type && where(message), timeoutMs),
    received: (type) => events.messages.filter((message) => message.type === type),
  };
}

/** A server, a room of three (alice owns it) with a started meeting, and open sessions. */
export async function startMeetingWorld(database: ChatDatabase = 'sqlite', env: Record<string, string> = {}) {
  const server = await startChatServer(database, { env: { ...loopbackMeetingEnv, ...env } });
  const ids = users('alice', 'bob', 'carol');
  const [alice, bob, carol] = await Promise.all(
    [ids.alice, ids.bob, ids.carol].map((id) => meetingUser(server, id)),
  );
  if (!alice || !bob || !carol) throw new Error('no users');
  const room = await alice.call('POST', '/rooms', {
    json: { type: 'group', name: 'Team', membersIds: [bob.userId, carol.userId] },
  });
  const meeting = await alice.call('POST', '/meetings', { json: { roomId: room.body.id, name: 'Daily' } });
  await alice.call('POST', `/meetings/${meeting.body.id}/start`);
  const meetingId: string = meeting.body.id;
  const join = (user: MeetingUser, queueId = user.queueId) =>
    user.call('POST', `/meetings/${meetingId}/join`, {
      json: { audioStreamEnabled: true, videoStreamEnabled: true },
      headers: { 'queue-id': queueId },
    });
  const close = async () => {
    await Promise.all([alice, bob, carol].map((user) => user.events.close()));
    await server.stop();
  };
  return { server, alice, bob, carol, roomId: room.body.id as string, meetingId, join, close };
}

/** Client offers for the MediaServer conformance suite, from werift test clients it closes after. */
export function mediaTestPeers() {
  const peers: { close(): Promise<void> }[] = [];
  return {
    async audioOffer() {
      const client = new AudioTestClient();
      peers.push(client);
      return client.createOffer();
    },
    async videoOffer() {
      const client = new VideoTestPublisher();
      peers.push(client);
      return client.createOffer();
    },
    close: async () => {
      await Promise.all(peers.map((peer) => peer.close()));
    },
  };
}

/**
 * `from` publishes video (werift test publisher, `bitrate` bits/s, a keyframe a second) and `to`
 * subscribes to it; resolves once the subscriber has answered, with both clients (the caller closes
 * them) and the mid the video arrives on.
 */
export async function forwardVideo(from: MeetingUser, to: MeetingUser, meetingId: string, bitrate: number) {
  const publisher = new VideoTestPublisher({ payloadType: 120 });
  const subscriber = new VideoTestSubscriber();
  await from.call('PUT', `/meetings/${meetingId}/media`, {
    json: { type: 'video', enabled: true, sdp: await publisher.createOffer() },
  });
  await publisher.acceptAnswer((await from.next('MEETING_SDP_ANSWERED')).sdp);
  publisher.start({ bitrate, keyframeInterval: 1_000 });
  await to.call('PUT', `/meetings/${meetingId}/media/subscribe`, {
    json: { subscribe: [{ userId: from.userId, type: 'video' }], unsubscribe: [] },
  });
  const offered = await to.next('MEETING_SDP_OFFERED');
  const mid = (await to.next('MEETING_PARTICIPANT_SUBSCRIBED')).streams[0].mid as string;
  await to.call('PUT', `/meetings/${meetingId}/media/answer`, {
    json: { sdp: await subscriber.answer(offered.sdp) },
  });
  return { publisher, subscriber, mid };
}
