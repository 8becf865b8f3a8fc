import type { MeetingEventPayload } from './meetings/meeting-events.js';

/**
 * Events delivered to users (reference §12, CONSTANT_CASE names of 0.7.1). Every event carries
 * `type` and `sentDate` (ISO-8601).
 */
export type RoomEventPayload =
  | { type: 'ROOM_CREATED'; roomId: string }
  | { type: 'ROOM_UPDATED'; roomId: string; name: string; description: string }
  | { type: 'ROOM_DELETED'; roomId: string }
  | { type: 'ROOM_OWNER_PROMOTED'; roomId: string; userId: string }
  | { type: 'ROOM_OWNER_DEMOTED'; roomId: string; userId: string }
  | { type: 'ROOM_PICTURE_CHANGED'; roomId: string; updatedAt: string }
  | { type: 'ROOM_PICTURE_DELETED'; roomId: string }
  | { type: 'ROOM_MEMBER_ADDED'; roomId: string; userId: string; isOwner: boolean }
  | { type: 'ROOM_MEMBER_REMOVED'; roomId: string; userId: string }
  | { type: 'ROOM_MUTED'; roomId: string }
  | { type: 'ROOM_UNMUTED'; roomId: string }
  | { type: 'ROOM_HISTORY_CLEARED'; roomId: string; clearedAt: string };

/**
 * Messages of the default {@link MessageDispatcher}: what the original sent as XMPP stanzas
 * into the room, delivered as events to the room's members.
 */
export type RoomMessagePayload =
  | {
      type: 'ROOM_SYSTEM_MESSAGE';
      roomId: string;
      senderId: string;
      /** memberAdded, memberRemoved, roomNameChanged, roomDescriptionChanged, roomPictureUpdated, roomPictureDeleted. */
      operation: SystemMessageOperation;
      /** Operation-specific values (e.g. `userId`, `value`, `pictureId`, `pictureName`). */
      fields: Record<string, string>;
    }
  | {
      type: 'ROOM_ATTACHMENT_ADDED';
      roomId: string;
      senderId: string;
      attachment: { id: string; name: string; mimeType: string; size: number; area?: string };
      description?: string;
      messageId?: string;
      replyId?: string;
    }
  | {
      type: 'ROOM_MESSAGE_FORWARDED';
      roomId: string;
      senderId: string;
      originalMessage: string;
      originalMessageSentAt?: string;
      description?: string;
      /** How many times the message has been forwarded, this time included. */
      count: number;
      /** The copy of the original's attachment in this room. */
      attachment?: { id: string; name: string; mimeType: string; size: number };
    };

/** The operations of a `ROOM_SYSTEM_MESSAGE`. */
export type SystemMessageOperation =
  | 'memberAdded'
  | 'memberRemoved'
  | 'roomNameChanged'
  | 'roomDescriptionChanged'
  | 'roomPictureUpdated'
  | 'roomPictureDeleted';

/** Everything a user can receive on the event stream, without `sentDate`. */
export type ChatEventPayload = RoomEventPayload | RoomMessagePayload | MeetingEventPayload;

/** An event as delivered: its payload plus when it was sent. */
export type ChatEvent = ChatEventPayload & { sentDate: string };

/** The `type` of any {@link ChatEvent}. */
export type ChatEventType = ChatEvent['type'];

/** One event for one user, or for one of the user's sessions when `queueId` is set. */
export interface EventDelivery {
  userId: string;
  /** Limits delivery to the session with this queue id. */
  queueId?: string;
  event: ChatEvent;
}
