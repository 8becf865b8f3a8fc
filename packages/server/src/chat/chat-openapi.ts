import {
  attachmentUploadSchema,
  fileUploadSchema,
  forwardMessageSchema,
  roomCreationSchema,
  roomEditableSchema,
} from '@collab-suite/chat-domain';
import type { OpenApiFragment } from '../openapi/openapi-document.js';
import { withZodBounds, zodPropertyBounds } from '../openapi/zod-bounds.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const uuid = { type: 'string', format: 'uuid' };
const dateTime = { type: 'string', format: 'date-time' };
const security = [{ bearer: [] }, { cookie: [] }];
const tags = ['chat rooms'];

const errorText: Record<number, string> = {
  400: 'Bad input or a room rule refused the operation (the body says which).',
  401: 'No token, or the token was refused.',
  403: 'The caller is not a member, not an owner, or not allowed.',
  404: 'Unknown room, member, user, picture or attachment (also for ids that are not UUIDs).',
  409: 'A one_to_one room between the same two users already exists, or a user is in as many rooms as allowed (too_many_rooms): CHAT_MAX_ROOMS_PER_USER for rooms others put them in, twice it for rooms they create.',
  429: 'More rooms created in the last minute than CHAT_ROOM_CREATIONS_PER_MINUTE; retry after Retry-After seconds.',
  413: 'The upload is larger than CHAT_MAX_ATTACHMENT_BYTES, or the JSON body larger than the route takes.',
  424: 'The bytes are missing from the blob store.',
  502: 'A dependency (user directory, event delivery) failed.',
  507: 'The disk of the file store or of the database is full (storage_full); nothing was kept.',
};

function responses(success: Record<string, unknown>, errors: number[]) {
  const all: Record<string, unknown> = { ...success };
  for (const status of [401, ...errors]) {
    const retry = status === 429 ? { headers: { 'Retry-After': { schema: { type: 'integer' } } } } : {};
    all[String(status)] = { description: errorText[status], ...retry, ...json(ref('ChatError')) };
  }
  return all;
}

const pathParameter = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: uuid,
});
const roomId = pathParameter('roomId', 'The room.');
const userId = pathParameter('userId', 'The member.');
const attachmentId = pathParameter('attachmentId', 'The attachment.');
const uploadBounds = zodPropertyBounds(attachmentUploadSchema);
const pictureBounds = zodPropertyBounds(fileUploadSchema);
/** A header of an upload, with the bounds its field has in `bounds` (the upload's zod schema). */
const header = (
  name: string,
  required: boolean,
  description: string,
  bounds: Record<string, Record<string, unknown>> = uploadBounds,
) => ({
  name,
  in: 'header',
  required,
  description,
  schema: { type: 'string', ...bounds[name] },
});
const binary = { content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } };

/** Page cursors are base64 or base64url text made by the server. */
const opaqueTokenPattern = '^[A-Za-z0-9_+/-]+={0,2}$';

function operation(summary: string, extra: Record<string, unknown>) {
  return { tags, summary, security, ...extra };
}

const ownerRoute = (verb: string) =>
  operation(`${verb} another member (owners only)`, {
    parameters: [roomId, userId],
    responses: responses({ 204: { description: `${verb}d.` } }, [400, 403, 404]),
  });

/** OpenAPI description of the chat rooms API. */
export const chatOpenApi: OpenApiFragment = {
  tags: [
    {
      name: 'chat rooms',
      description: 'Rooms, members, pictures, attachments, forwarding; events on WebSocket /events.',
    },
  ],
  schemas: {
    Capabilities: {
      type: 'object',
      description:
        "The original's capability list. Limits come from this server's configuration (maxGroupMembers from CHAT_MAX_ROOM_MEMBERS, the image sizes from CHAT_MAX_PICTURE_BYTES); reads, presence and the edit and delete windows are the XMPP side's defaults.",
      properties: {
        canSeeMessageReads: { type: 'boolean' },
        canSeeUsersPresence: { type: 'boolean' },
        canVideoCall: { type: 'boolean' },
        canVideoCallRecord: { type: 'boolean' },
        canUseVirtualBackground: { type: 'boolean' },
        editMessageTimeLimitInMinutes: { type: 'integer' },
        deleteMessageTimeLimitInMinutes: { type: 'integer' },
        maxGroupMembers: { type: 'integer' },
        maxRoomImageSizeInKb: { type: 'integer' },
        maxUserImageSizeInKb: { type: 'integer' },
      },
      required: [
        'canSeeMessageReads',
        'canSeeUsersPresence',
        'canVideoCall',
        'canVideoCallRecord',
        'canUseVirtualBackground',
        'editMessageTimeLimitInMinutes',
        'deleteMessageTimeLimitInMinutes',
        'maxGroupMembers',
        'maxRoomImageSizeInKb',
        'maxUserImageSizeInKb',
      ],
    },
    ChatError: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
    RoomType: { type: 'string', enum: ['group', 'one_to_one', 'temporary'] },
    Member: {
      type: 'object',
      required: ['userId', 'owner'],
      properties: { userId: uuid, owner: { type: 'boolean' } },
    },
    RoomUserSettings: {
      type: 'object',
      required: ['muted'],
      properties: { muted: { type: 'boolean' }, clearedAt: dateTime },
    },
    Room: {
      type: 'object',
      required: ['id', 'type', 'name', 'description', 'createdAt', 'updatedAt', 'members'],
      properties: {
        id: uuid,
        type: ref('RoomType'),
        name: { type: 'string', description: 'Empty for one_to_one rooms.' },
        description: { type: 'string', description: 'Empty for one_to_one rooms.' },
        meetingId: uuid,
        createdAt: dateTime,
        updatedAt: dateTime,
        pictureUpdatedAt: { ...dateTime, description: 'Present while the room has a picture.' },
        members: {
          type: 'array',
          items: ref('Member'),
          description: 'Empty in lists without extraFields=members.',
        },
        userSettings: ref('RoomUserSettings'),
      },
    },
    RoomCreationFields: {
      type: 'object',
      required: ['type'],
      properties: withZodBounds(
        {
          type: ref('RoomType'),
          name: { type: 'string', description: 'Required for group and temporary rooms.' },
          description: { type: 'string' },
          membersIds: {
            type: 'array',
            items: uuid,
            uniqueItems: true,
            description:
              'Other members, distinct, without the caller (added as owner); exactly 1 for one_to_one, at least 2 for group, fewer than CHAT_MAX_ROOM_MEMBERS in all.',
          },
        },
        roomCreationSchema,
      ),
      // A group or temporary room needs a name, a group room 2 other members or more, a one_to_one room
      // exactly one.
      allOf: [
        {
          if: { properties: { type: { enum: ['group', 'temporary'] } }, required: ['type'] },
          // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
          then: { required: ['name'], properties: { name: { minLength: 1 } } },
        },
        {
          if: { properties: { type: { const: 'group' } }, required: ['type'] },
          // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
          then: { required: ['membersIds'], properties: { membersIds: { minItems: 2 } } },
        },
        {
          if: { properties: { type: { const: 'one_to_one' } }, required: ['type'] },
          // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
          then: { required: ['membersIds'], properties: { membersIds: { minItems: 1, maxItems: 1 } } },
        },
      ],
    },
    RoomEditableFields: {
      type: 'object',
      properties: withZodBounds(
        { name: { type: 'string' }, description: { type: 'string' } },
        roomEditableSchema,
      ),
      description: 'At least one of name and description.',
      anyOf: [{ required: ['name'] }, { required: ['description'] }],
    },
    MemberToInsert: {
      type: 'object',
      required: ['userId', 'owner', 'historyCleared'],
      properties: { userId: uuid, owner: { type: 'boolean' }, historyCleared: { type: 'boolean' } },
    },
    MemberInserted: {
      type: 'object',
      required: ['userId', 'owner'],
      properties: { userId: uuid, owner: { type: 'boolean' }, clearedAt: dateTime },
    },
    ClearedDate: { type: 'object', required: ['clearedAt'], properties: { clearedAt: dateTime } },
    Id: { type: 'object', required: ['id'], properties: { id: uuid } },
    Attachment: {
      type: 'object',
      required: ['id', 'name', 'size', 'mimeType', 'userId', 'roomId', 'createdAt'],
      properties: {
        id: uuid,
        name: { type: 'string' },
        size: { type: 'integer' },
        mimeType: { type: 'string' },
        userId: uuid,
        roomId: uuid,
        createdAt: dateTime,
        area: { type: 'string', pattern: '^\\d*x\\d*$' },
      },
    },
    AttachmentsPagination: {
      type: 'object',
      required: ['attachments'],
      properties: {
        attachments: { type: 'array', items: ref('Attachment') },
        filter: {
          type: 'string',
          description: 'Pass as `filter` for the next page; absent on the last page.',
        },
      },
    },
    ForwardMessagesList: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: {
        type: 'object',
        required: ['originalMessage'],
        properties: withZodBounds(
          {
            originalMessage: { type: 'string', description: 'The message (an XMPP stanza, or plain text).' },
            originalMessageSentAt: dateTime,
            description: { type: 'string' },
          },
          forwardMessageSchema,
        ),
      },
    },
  },
  paths: {
    '/rooms': {
      get: operation("The caller's rooms", {
        parameters: [
          {
            name: 'extraFields',
            in: 'query',
            required: false,
            description: 'members and/or settings; repeated or comma-joined. An empty value names nothing.',
            schema: { type: 'array', items: { type: 'string', enum: ['members', 'settings', ''] } },
            explode: true,
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description:
              'Pages the listing (not in the original API): at most this many rooms, 100 when only cursor is given. Without limit and cursor every room comes at once.',
            schema: { type: 'integer', minimum: 1, maximum: 1000 },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description:
              "The next page's cursor, from the previous page's Link header; any other text is refused (400).",
            schema: { type: 'string', minLength: 1, pattern: opaqueTokenPattern },
          },
        ],
        responses: responses(
          {
            200: {
              description: 'Rooms, oldest first.',
              headers: {
                Link: {
                  description:
                    'With limit or cursor, when more rooms follow: `</rooms?...&cursor=...>; rel="next"`.',
                  schema: { type: 'string' },
                },
              },
              ...json({ type: 'array', items: ref('Room') }),
            },
          },
          [400],
        ),
      }),
      post: operation('Create a room', {
        requestBody: { required: true, ...json(ref('RoomCreationFields')) },
        responses: responses(
          { 201: { description: 'Created; the caller is an owner.', ...json(ref('Room')) } },
          [400, 404, 409, 413, 429],
        ),
      }),
    },
    '/rooms/{roomId}': {
      get: operation('A room with members and the caller settings', {
        parameters: [roomId],
        responses: responses({ 200: { description: 'The room.', ...json(ref('Room')) } }, [403, 404]),
      }),
      put: operation('Rename or redescribe a room (owners only)', {
        parameters: [roomId],
        requestBody: { required: true, ...json(ref('RoomEditableFields')) },
        responses: responses(
          { 200: { description: 'The updated room.', ...json(ref('Room')) } },
          [400, 403, 404, 413],
        ),
      }),
      delete: operation('Delete a room with its picture, attachments and settings (owners only)', {
        parameters: [roomId],
        responses: responses({ 204: { description: 'Deleted.' } }, [403, 404]),
      }),
    },
    '/rooms/{roomId}/picture': {
      get: operation('The room picture', {
        parameters: [roomId],
        responses: responses(
          {
            200: {
              description: 'The picture bytes.',
              content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
            },
          },
          [403, 404, 424],
        ),
      }),
      put: operation('Set the picture of a group room (owners only)', {
        parameters: [
          roomId,
          header('fileName', true, 'File name, as \\uXXXX escapes or plain UTF-8.', pictureBounds),
          header(
            'mimeType',
            true,
            'An image/* type; the bytes must be PNG, JPEG, GIF, WebP, BMP, AVIF or HEIC.',
            pictureBounds,
          ),
        ],
        requestBody: { required: true, ...binary },
        responses: responses({ 204: { description: 'Set.' } }, [400, 403, 404, 507]),
      }),
      delete: operation('Delete the room picture (owners only)', {
        parameters: [roomId],
        responses: responses({ 204: { description: 'Deleted.' } }, [403, 404]),
      }),
    },
    '/rooms/{roomId}/mute': {
      put: operation('Mute the room for the caller', {
        parameters: [roomId],
        responses: responses({ 204: { description: 'Muted.' } }, [403, 404]),
      }),
      delete: operation('Unmute the room for the caller', {
        parameters: [roomId],
        responses: responses({ 204: { description: 'Unmuted.' } }, [403, 404]),
      }),
    },
    '/rooms/{roomId}/clear': {
      put: operation("Clear the caller's history", {
        parameters: [roomId],
        responses: responses(
          { 200: { description: 'The new watermark.', ...json(ref('ClearedDate')) } },
          [403, 404],
        ),
      }),
    },
    '/rooms/{roomId}/members': {
      get: operation('Members of a room', {
        parameters: [roomId],
        responses: responses(
          {
            200: { description: 'Members in join order.', ...json({ type: 'array', items: ref('Member') }) },
          },
          [403, 404],
        ),
      }),
      post: operation('Add a member (owners only)', {
        parameters: [roomId],
        requestBody: { required: true, ...json(ref('MemberToInsert')) },
        responses: responses(
          { 201: { description: 'Added.', ...json(ref('MemberInserted')) } },
          [400, 403, 404, 409, 413],
        ),
      }),
    },
    '/rooms/{roomId}/members/{userId}': {
      delete: operation('Remove a member (owners) or leave (the caller)', {
        parameters: [roomId, userId],
        responses: responses(
          { 204: { description: 'Removed; the room is deleted when its last member leaves.' } },
          [400, 403, 404],
        ),
      }),
    },
    '/rooms/{roomId}/members/{userId}/owner': { put: ownerRoute('Promote'), delete: ownerRoute('Demote') },
    '/rooms/{roomId}/attachments': {
      get: operation('Attachments of a room, newest first', {
        parameters: [
          roomId,
          {
            name: 'itemsNumber',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
          },
          {
            name: 'filter',
            in: 'query',
            required: false,
            description: 'The `filter` of the previous page; any other text is refused (400).',
            schema: { type: 'string', minLength: 1, pattern: opaqueTokenPattern },
          },
        ],
        responses: responses(
          { 200: { description: 'One page.', ...json(ref('AttachmentsPagination')) } },
          [400, 403, 404],
        ),
      }),
      post: operation('Upload an attachment', {
        parameters: [
          roomId,
          header('fileName', true, 'File name, as \\uXXXX escapes or plain UTF-8.'),
          header('mimeType', true, 'type/subtype of the file.'),
          header('description', false, 'Message text, as \\uXXXX escapes or plain UTF-8.'),
          header('messageId', false, 'Client id of the message.'),
          header('replyId', false, 'The message replied to.'),
          header('area', false, 'Preview area WIDTHxHEIGHT, e.g. 15x20.'),
        ],
        requestBody: {
          required: false,
          description: 'The file bytes; no body stores an empty file.',
          ...binary,
        },
        responses: responses(
          { 201: { description: 'Stored.', ...json(ref('Id')) } },
          [400, 403, 404, 413, 507],
        ),
      }),
    },
    '/rooms/{roomId}/forward': {
      post: operation('Forward messages and copies of their attachments into a room', {
        parameters: [roomId],
        requestBody: { required: true, ...json(ref('ForwardMessagesList')) },
        responses: responses({ 204: { description: 'Delivered.' } }, [400, 403, 404, 413, 424, 502]),
      }),
    },
    '/users/capabilities': {
      get: operation("The caller's capabilities: what clients may do and this server's limits", {
        responses: responses(
          { 200: { description: 'The capability list.', ...json(ref('Capabilities')) } },
          [],
        ),
      }),
    },
    '/attachments/{attachmentId}': {
      get: operation('Attachment metadata', {
        parameters: [attachmentId],
        responses: responses(
          { 200: { description: 'The metadata.', ...json(ref('Attachment')) } },
          [403, 404],
        ),
      }),
      delete: operation('Delete an attachment (uploader or owner)', {
        parameters: [attachmentId],
        responses: responses({ 204: { description: 'Deleted.' } }, [403, 404]),
      }),
    },
    '/attachments/{attachmentId}/download': {
      get: operation('Attachment bytes', {
        parameters: [attachmentId],
        responses: responses(
          {
            200: {
              description: 'The bytes, inline, with the type given at upload (its `mimeType` header).',
              content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
            },
          },
          [403, 404, 424],
        ),
      }),
    },
  },
};
