import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { MessageDispatcher } from '../ports/message-dispatcher.js';

/**
 * The default {@link MessageDispatcher}: each message becomes an event (`ROOM_SYSTEM_MESSAGE`,
 * `ROOM_ATTACHMENT_ADDED`, `ROOM_MESSAGE_FORWARDED`) published to every current member of the
 * room through `events`. A failing bus makes `dispatch` throw.
 */
export function createEventMessageDispatcher(events: EventBus, clock: Clock): MessageDispatcher {
  return {
    async dispatch(message, memberIds) {
      const sentDate = clock.now().toISOString();
      await events.publish(memberIds.map((userId) => ({ userId, event: { ...message, sentDate } })));
    },
  };
}
