import { randomUUID } from 'node:crypto';
import {
  type Actor,
  createChatService,
  createManualClock,
  createMeetingService,
  createMemoryChatStore,
  createMemoryEventBus,
  createMemoryMediaServer,
  type EventDelivery,
} from '@collab-suite/chat-domain';

/** A chat and meeting service on memory ports, with every delivery recorded. */
export async function meetingSetup(options: { maxParticipants?: number; expiredBatch?: number } = {}) {
  const store = createMemoryChatStore();
  const events = createMemoryEventBus();
  const clock = createManualClock(new Date('2024-06-01T08:00:00.000Z'));
  const media = createMemoryMediaServer();
  const backgroundErrors: string[] = [];
  const meetings = createMeetingService({
    store,
    events,
    clock,
    media,
    onBackgroundError: (_error, context) => backgroundErrors.push(context),
    limits: { maxParticipants: options.maxParticipants ?? 100, expiredBatch: options.expiredBatch ?? 100 },
  });
  const chat = createChatService({ store, events, clock, roomObserver: meetings.roomObserver });
  const actors = {
    alice: { userId: randomUUID() },
    bob: { userId: randomUUID() },
    carol: { userId: randomUUID() },
    dave: { userId: randomUUID() },
  };
  const deliveries: EventDelivery[] = [];
  for (const actor of Object.values(actors)) {
    await events.subscribe(actor.userId, (delivery) => deliveries.push(delivery));
  }
  const room = await chat.createRoom(actors.alice, {
    type: 'group',
    name: 'Team',
    membersIds: [actors.bob.userId, actors.carol.userId],
  });
  /** Deliveries of one type, as `[userId, queueId?, event]`. */
  const sent = (type: string) => deliveries.filter((delivery) => delivery.event.type === type);
  const recipients = (type: string) =>
    sent(type)
      .map((delivery) => delivery.userId)
      .sort();
  const queues = new Map<Actor, string>();
  const queueOf = (actor: Actor) => {
    let queueId = queues.get(actor);
    if (queueId === undefined) {
      queueId = randomUUID();
      queues.set(actor, queueId);
    }
    return queueId;
  };
  const startedMeeting = async () => {
    const meeting = await meetings.createMeeting(actors.alice, { roomId: room.id, name: 'Daily' });
    await meetings.startMeeting(actors.alice, meeting.id);
    return meeting;
  };
  const join = (actor: Actor, meetingId: string, queueId = queueOf(actor)) =>
    meetings.joinMeeting(actor, meetingId, queueId, { audioStreamEnabled: true, videoStreamEnabled: false });
  return {
    store,
    events,
    clock,
    media,
    meetings,
    chat,
    room,
    deliveries,
    sent,
    recipients,
    queueOf,
    startedMeeting,
    join,
    backgroundErrors,
    ...actors,
  };
}
