import type { ChatEvent, ChatEventType } from '@collab-suite/chat-domain';

/** A JSON Schema (2020-12 vocabulary, as AsyncAPI 3 payloads use it). */
export interface JsonSchema {
  readonly [keyword: string]: unknown;
  /** Reserved: an optional field is written `optional(schema)`. */
  readonly optional?: never;
}

/** A field that may be absent from an event. */
export interface OptionalField {
  readonly optional: true;
  readonly schema: JsonSchema;
}

/** Marks a field as one an event may leave out. */
export function optional(schema: JsonSchema): OptionalField {
  return { optional: true, schema };
}

type EventOf<Type extends ChatEventType> = Extract<ChatEvent, { type: Type }>;
type FieldOf<Type extends ChatEventType> = Exclude<keyof EventOf<Type>, 'type' | 'sentDate'>;

/**
 * The schema of every field of one event type. The type follows the event's TypeScript type: a
 * field missing here, one the event does not have, or an optional field not written `optional(...)`
 * (and the other way round) does not compile.
 */
export type EventFields<Type extends ChatEventType> = {
  readonly [Field in FieldOf<Type>]-?: object extends Pick<EventOf<Type>, Field> ? OptionalField : JsonSchema;
};

/** What the AsyncAPI document says about one event type. */
export interface EventDescription<Type extends ChatEventType> {
  /** One line: what happened. */
  readonly summary: string;
  /** Who receives it. */
  readonly recipients: string;
  readonly fields: EventFields<Type>;
}

const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const text: JsonSchema = { type: 'string' };
const flag: JsonSchema = { type: 'boolean' };
const mediaType: JsonSchema = { type: 'string', enum: ['VIDEO', 'SCREEN'] };
const sdp: JsonSchema = { type: 'string', description: 'An SDP session description (RFC 8866).' };
const roomId: JsonSchema = { ...uuid, description: 'The room.' };
const meetingId: JsonSchema = { ...uuid, description: 'The meeting.' };
const attachmentFields = {
  id: uuid,
  name: text,
  mimeType: text,
  size: { type: 'integer', minimum: 0, description: 'Bytes.' },
};

const roomMembers = 'every member of the room';

/** Room events of reference §12 (CONSTANT_CASE names of 0.7.1). */
const roomEvents = {
  ROOM_CREATED: { summary: 'A room was created.', recipients: roomMembers, fields: { roomId } },
  ROOM_UPDATED: {
    summary: 'The name or description of a room changed (sent only when one of them changed).',
    recipients: roomMembers,
    fields: { roomId, name: text, description: text },
  },
  ROOM_DELETED: { summary: 'A room was deleted.', recipients: roomMembers, fields: { roomId } },
  ROOM_OWNER_PROMOTED: {
    summary: 'A member became an owner of the room.',
    recipients: roomMembers,
    fields: { roomId, userId: uuid },
  },
  ROOM_OWNER_DEMOTED: {
    summary: 'An owner of the room became a plain member.',
    recipients: roomMembers,
    fields: { roomId, userId: uuid },
  },
  ROOM_PICTURE_CHANGED: {
    summary: 'The room got a new picture.',
    recipients: roomMembers,
    fields: { roomId, updatedAt: dateTime },
  },
  ROOM_PICTURE_DELETED: {
    summary: 'The room picture was removed.',
    recipients: roomMembers,
    fields: { roomId },
  },
  ROOM_MEMBER_ADDED: {
    summary: 'A user joined the room.',
    recipients: 'every member of the room, the new one included',
    fields: { roomId, userId: uuid, isOwner: flag },
  },
  ROOM_MEMBER_REMOVED: {
    summary: 'A user left the room or was removed.',
    recipients: 'every member of the room, the removed one included',
    fields: { roomId, userId: uuid },
  },
  ROOM_MUTED: { summary: 'The caller muted the room.', recipients: 'the caller only', fields: { roomId } },
  ROOM_UNMUTED: {
    summary: 'The caller unmuted the room.',
    recipients: 'the caller only',
    fields: { roomId },
  },
  ROOM_HISTORY_CLEARED: {
    summary: "The caller cleared the room's history up to `clearedAt`.",
    recipients: 'the caller only',
    fields: { roomId, clearedAt: dateTime },
  },
} satisfies { [Type in ChatEventType & `ROOM_${string}`]?: EventDescription<Type> };

/** What the original sent as XMPP stanzas into the room, delivered as events. */
const roomMessages = {
  ROOM_SYSTEM_MESSAGE: {
    summary: 'A change of the room announced in it (member added or removed, name, description, picture).',
    recipients: roomMembers,
    fields: {
      roomId,
      senderId: uuid,
      operation: {
        type: 'string',
        enum: [
          'memberAdded',
          'memberRemoved',
          'roomNameChanged',
          'roomDescriptionChanged',
          'roomPictureUpdated',
          'roomPictureDeleted',
        ],
      },
      fields: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'Values of the operation: `userId`, `value`, `pictureId`, `pictureName`.',
      },
    },
  },
  ROOM_ATTACHMENT_ADDED: {
    summary: 'A member shared a file in the room.',
    recipients: roomMembers,
    fields: {
      roomId,
      senderId: uuid,
      attachment: {
        type: 'object',
        required: ['id', 'name', 'mimeType', 'size'],
        properties: { ...attachmentFields, area: { type: 'string', description: 'Preview area, `WxH`.' } },
        additionalProperties: false,
      },
      description: optional(text),
      messageId: optional(text),
      replyId: optional(text),
    },
  },
  ROOM_MESSAGE_FORWARDED: {
    summary: 'A member forwarded a message (and its attachment) into the room.',
    recipients: roomMembers,
    fields: {
      roomId,
      senderId: uuid,
      originalMessage: { type: 'string', description: 'The forwarded message as the client sent it.' },
      originalMessageSentAt: optional(dateTime),
      description: optional(text),
      count: {
        type: 'integer',
        minimum: 1,
        description: 'Times the message was forwarded, this one included.',
      },
      attachment: optional({
        type: 'object',
        required: ['id', 'name', 'mimeType', 'size'],
        properties: attachmentFields,
        additionalProperties: false,
        description: "The copy of the original's attachment in this room.",
      }),
    },
  },
} satisfies { [Type in ChatEventType & `ROOM_${string}`]?: EventDescription<Type> };

const participants = "the meeting's participants";
const oneUser = 'the user it concerns';

/** Meeting events of reference §12. */
const meetingEvents = {
  MEETING_CREATED: {
    summary: 'A meeting was created for a room.',
    recipients: roomMembers,
    fields: { meetingId, roomId },
  },
  MEETING_DELETED: { summary: 'A meeting was deleted.', recipients: roomMembers, fields: { meetingId } },
  MEETING_STARTED: {
    summary: 'A meeting started.',
    recipients: roomMembers,
    fields: { meetingId, starterUser: uuid, startedAt: dateTime },
  },
  MEETING_STOPPED: {
    summary: 'A meeting stopped: its last participant left, or its media server failed.',
    recipients: roomMembers,
    fields: { meetingId, reason: optional({ type: 'string', enum: ['media_server_failed'] }) },
  },
  MEETING_PARTICIPANT_JOINED: {
    summary: 'A user joined the meeting.',
    recipients: roomMembers,
    fields: { meetingId, userId: uuid },
  },
  MEETING_PARTICIPANT_LEFT: {
    summary: 'A user left the meeting.',
    recipients: roomMembers,
    fields: { meetingId, userId: uuid },
  },
  MEETING_PARTICIPANT_CLASHED: {
    summary: 'The user joined the meeting from another session, which replaces this one.',
    recipients: 'the replaced session only',
    fields: { meetingId },
  },
  MEETING_AUDIO_STREAM_CHANGED: {
    summary: 'A participant turned the microphone on or off, or a moderator muted it.',
    recipients: participants,
    fields: {
      meetingId,
      userId: uuid,
      moderatorId: optional({ ...uuid, description: 'Present when a moderator muted the user.' }),
      active: flag,
    },
  },
  MEETING_MEDIA_STREAM_CHANGED: {
    summary: 'A participant turned the camera or screen sharing on or off.',
    recipients: participants,
    fields: { meetingId, userId: uuid, mediaType, active: flag },
  },
  MEETING_AUDIO_ANSWERED: {
    summary: "The SFU's answer to the user's audio offer.",
    recipients: oneUser,
    fields: { meetingId, userId: uuid, sdp },
  },
  MEETING_SDP_ANSWERED: {
    summary: "The SFU's answer to the user's offer to publish the camera or the screen.",
    recipients: oneUser,
    fields: { meetingId, userId: uuid, mediaType, sdp },
  },
  MEETING_SDP_OFFERED: {
    summary: "The SFU's offer for the streams the user subscribed to; answer it on the REST API.",
    recipients: oneUser,
    fields: { meetingId, userId: uuid, mediaType, sdp },
  },
  MEETING_PARTICIPANT_TALKING: {
    summary: 'A participant started or stopped talking.',
    recipients: participants,
    fields: { meetingId, userId: uuid, isTalking: flag },
  },
  MEETING_DOMINANT_SPEAKER: {
    summary:
      'Another participant became the dominant speaker: the loudest of those talking for 1 s in a row, ' +
      'and 6 dB louder than the previous dominant speaker if that one still talks. Also sent on join when ' +
      'there is one. The dominant speaker stays through silence until someone else takes over.',
    recipients: participants,
    fields: { meetingId, userId: uuid },
  },
  MEETING_PARTICIPANT_SUBSCRIBED: {
    summary: "Which mid of the user's subscription connection carries whose stream.",
    recipients: oneUser,
    fields: {
      meetingId,
      userId: uuid,
      streams: {
        type: 'array',
        items: {
          type: 'object',
          required: ['type', 'userId', 'mid'],
          properties: { type: mediaType, userId: uuid, mid: text },
          additionalProperties: false,
        },
      },
    },
  },
} satisfies { [Type in ChatEventType & `MEETING_${string}`]?: EventDescription<Type> };

/**
 * Every event type delivered on `/events` with its payload fields. Typed against the chat domain's
 * {@link ChatEvent}: a new event type, or a changed field, does not compile until it is described here.
 */
export const eventDescriptions: { readonly [Type in ChatEventType]: EventDescription<Type> } = {
  ...roomEvents,
  ...roomMessages,
  ...meetingEvents,
};

/** The JSON Schema of one event as sent: its fields plus `type` and `sentDate`. */
export function eventPayloadSchema(type: ChatEventType): JsonSchema {
  const description: EventDescription<ChatEventType> = eventDescriptions[type];
  const fields = Object.entries(description.fields) as [string, JsonSchema | OptionalField][];
  const properties: Record<string, unknown> = { type: { const: type }, sentDate: dateTime };
  const required = ['type', 'sentDate'];
  for (const [name, field] of fields) {
    const isOptional = (field as OptionalField).optional === true;
    properties[name] = isOptional ? (field as OptionalField).schema : field;
    if (!isOptional) required.push(name);
  }
  return { type: 'object', required, properties, additionalProperties: false };
}
