import type { RoomMessagePayload } from '../events.js';

/**
 * Delivers the messages the domain sends into a room (system messages, attachment notices,
 * forwarded messages). The original sent them as XMPP stanzas; the default adapter delivers them
 * as events to the room's members. A failure must throw: nothing is dropped silently.
 */
export interface MessageDispatcher {
  /**
   * Delivers `message` into its room, to the given current members.
   * @throws ChatError `dependency_failed` when delivery fails
   */
  dispatch(message: RoomMessagePayload, memberIds: readonly string[]): Promise<void>;
}
