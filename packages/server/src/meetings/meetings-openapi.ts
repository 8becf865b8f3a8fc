import {
  maxSdpBytes,
  mediaStreamSettingsSchema,
  newMeetingSchema,
  subscriptionUpdatesSchema,
} from '@collab-suite/chat-domain';
import type { OpenApiFragment } from '../openapi/openapi-document.js';
import { withZodBounds } from '../openapi/zod-bounds.js';
import { meetingJsonLimitBytes } from './meeting-routes.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const uuid = { type: 'string', format: 'uuid' };
const dateTime = { type: 'string', format: 'date-time' };
const security = [{ bearer: [] }, { cookie: [] }];
const meetingId = {
  name: 'meetingId',
  in: 'path',
  required: true,
  description: 'The meeting.',
  schema: uuid,
};
const mediaType = { type: 'string', enum: ['video', 'screen'] };
/**
 * A session description: at most maxSdpBytes UTF-8 bytes (so at most that many characters), starting
 * with `v=0`; the meeting routes' JSON body limit leaves room for the longest one however escaped.
 */
const sdpText = {
  type: 'string',
  minLength: 1,
  maxLength: maxSdpBytes,
  pattern: '^v=0(?:\\r?\\n|$)',
  description: `SDP text, at most ${maxSdpBytes} bytes in UTF-8.`,
};

const errorText: Record<number, string> = {
  400: 'Bad input or malformed SDP (the body says which).',
  401: 'No token, or the token was refused.',
  403: 'The caller is not a member of the room (or not an owner, to mute someone else).',
  404: 'Unknown meeting or room, caller or target not a participant, or stream not published.',
  409: 'The room has a meeting, the meeting is not started, this queue already joined, the meeting is full, or a negotiation step came out of order.',
  413: `The JSON body is larger than ${meetingJsonLimitBytes} bytes (any body within the schema's bounds fits).`,
  424: 'The media server failed.',
  503: 'No media node can take the meeting now (every one is full or none is running); retry after Retry-After seconds.',
};

function operation(
  summary: string,
  parameters: unknown[],
  success: Record<string, unknown>,
  errors: number[],
  body?: string,
) {
  const responses: Record<string, unknown> = { ...success };
  for (const status of [401, ...errors, ...(body ? [413] : [])]) {
    const retry = status === 503 ? { headers: { 'Retry-After': { schema: { type: 'integer' } } } } : {};
    responses[String(status)] = { description: errorText[status], ...retry, ...json(ref('ChatError')) };
  }
  return {
    tags: ['meetings'],
    summary,
    security,
    parameters,
    ...(body ? { requestBody: { required: true, ...json(ref(body)) } } : {}),
    responses,
  };
}
const noContent = (description: string) => ({ 204: { description } });
const meetingResponse = (description: string) => ({ 200: { description, ...json(ref('Meeting')) } });

/** OpenAPI description of the meetings API. Media answers and offers arrive as `/events` messages. */
export const meetingsOpenApi: OpenApiFragment = {
  tags: [
    {
      name: 'meetings',
      description:
        'Meetings of chat rooms with WebRTC media. Join with the `queue-id` of your /events session; SDP answers and offers arrive there as MEETING_AUDIO_ANSWERED, MEETING_SDP_ANSWERED, MEETING_SDP_OFFERED and MEETING_PARTICIPANT_SUBSCRIBED.',
    },
  ],
  paths: {
    '/meetings': {
      get: operation(
        'Meetings of the caller rooms',
        [],
        { 200: { description: 'The meetings.', ...json({ type: 'array', items: ref('Meeting') }) } },
        [],
      ),
      post: operation(
        'Create the meeting of a room (one per room)',
        [],
        meetingResponse('The new, inactive meeting.'),
        [400, 403, 404, 409],
        'NewMeetingData',
      ),
    },
    '/meetings/{meetingId}': {
      get: operation(
        'A meeting with its participants',
        [meetingId],
        meetingResponse('The meeting.'),
        [403, 404],
      ),
      delete: operation(
        'Delete a meeting, closing its media',
        [meetingId],
        noContent('Deleted.'),
        [403, 404],
      ),
    },
    '/meetings/{meetingId}/start': {
      post: operation(
        'Start a meeting (starting an active one changes nothing)',
        [meetingId],
        meetingResponse('The active meeting.'),
        [403, 404, 424, 503],
      ),
    },
    '/meetings/{meetingId}/stop': {
      post: operation(
        'Stop a meeting: everyone is out and its media closed',
        [meetingId],
        meetingResponse('The stopped meeting.'),
        [403, 404],
      ),
    },
    '/meetings/{meetingId}/join': {
      post: operation(
        'Join an active meeting from an /events session; all streams start off',
        [
          meetingId,
          {
            name: 'queue-id',
            in: 'header',
            required: true,
            description: 'The queueId of websocketConnected.',
            schema: uuid,
          },
        ],
        { 200: { description: 'Accepted, with the ICE servers to use.', ...json(ref('JoinMeetingResult')) } },
        [400, 403, 404, 409, 424, 503],
        'JoinSettings',
      ),
    },
    '/meetings/{meetingId}/leave': {
      post: operation(
        'Leave; the last one out stops the meeting',
        [meetingId],
        noContent('Left (also when not a participant).'),
        [403, 404],
      ),
    },
    '/meetings/{meetingId}/media': {
      put: operation(
        'Publish (with an SDP offer) or disable the camera or screen; offer again with new ICE credentials to restart ICE',
        [meetingId],
        noContent('Done; MEETING_SDP_ANSWERED follows an offer.'),
        [400, 403, 404, 424],
        'MediaStreamSettings',
      ),
    },
    '/meetings/{meetingId}/media/subscribe': {
      put: operation(
        'Change the watched streams, or ask for an ICE restart offer (iceRestart)',
        [meetingId],
        noContent('MEETING_SDP_OFFERED and MEETING_PARTICIPANT_SUBSCRIBED follow.'),
        [400, 403, 404, 424],
        'SubscriptionUpdates',
      ),
    },
    '/meetings/{meetingId}/media/answer': {
      put: operation(
        'Answer the last subscription offer',
        [meetingId],
        noContent('Forwarding starts at the next keyframe.'),
        [400, 403, 404, 409],
        'SessionDescriptionProtocol',
      ),
    },
    '/meetings/{meetingId}/audio': {
      put: operation(
        'Unmute or mute yourself; owners may mute another participant',
        [meetingId],
        noContent('Done; MEETING_AUDIO_STREAM_CHANGED when it changed.'),
        [400, 403, 404],
        'AudioStreamSettings',
      ),
    },
    '/meetings/{meetingId}/audio/offer': {
      put: operation(
        'Offer your audio connection (it receives the mix of the others); offer again with new ICE credentials to restart ICE',
        [meetingId],
        noContent('MEETING_AUDIO_ANSWERED follows.'),
        [400, 403, 404, 424],
        'SessionDescriptionProtocol',
      ),
    },
    '/rooms/{roomId}/meeting': {
      get: operation(
        'The meeting of a room',
        [{ name: 'roomId', in: 'path', required: true, description: 'The room.', schema: uuid }],
        meetingResponse('The meeting.'),
        [403, 404],
      ),
    },
  },
  schemas: {
    Meeting: {
      type: 'object',
      required: ['id', 'name', 'roomId', 'active', 'participants', 'createdAt', 'meetingType'],
      properties: {
        id: uuid,
        name: { type: 'string' },
        roomId: uuid,
        active: { type: 'boolean' },
        participants: { type: 'array', items: ref('Participant') },
        createdAt: dateTime,
        startedAt: dateTime,
        meetingType: { type: 'string', enum: ['permanent', 'scheduled'] },
        expiration: dateTime,
      },
    },
    Participant: {
      type: 'object',
      properties: {
        userId: uuid,
        userType: { type: 'string', enum: ['moderator', 'registered'] },
        queueId: uuid,
        audioStreamEnabled: { type: 'boolean' },
        videoStreamEnabled: { type: 'boolean' },
        screenStreamEnabled: { type: 'boolean' },
        joinedAt: dateTime,
      },
    },
    NewMeetingData: {
      type: 'object',
      required: ['roomId'],
      properties: withZodBounds(
        {
          name: { type: 'string' },
          roomId: uuid,
          meetingType: { type: 'string', enum: ['permanent', 'scheduled'], default: 'permanent' },
          expiration: {
            ...dateTime,
            description: 'Scheduled meetings only: removed once past it and empty.',
          },
        },
        newMeetingSchema,
      ),
    },
    JoinSettings: {
      type: 'object',
      required: ['audioStreamEnabled', 'videoStreamEnabled'],
      properties: { audioStreamEnabled: { type: 'boolean' }, videoStreamEnabled: { type: 'boolean' } },
    },
    JoinMeetingResult: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ACCEPTED'] },
        iceServers: { type: 'array', items: { type: 'object', description: 'RTCIceServer' } },
      },
    },
    MediaStreamSettings: {
      type: 'object',
      required: ['type', 'enabled'],
      properties: withZodBounds(
        {
          type: mediaType,
          enabled: { type: 'boolean' },
          sdp: {
            ...sdpText,
            description: `${sdpText.description} The offer; required when enabling. An offer of the connection already published, with new ICE credentials (restartIce()), restarts ICE on it and keeps the stream; any other offer replaces the connection.`,
          },
        },
        mediaStreamSettingsSchema,
      ),
      if: { properties: { enabled: { const: true } }, required: ['enabled'] },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
      then: { required: ['sdp'], properties: { sdp: { minLength: 1 } } },
    },
    AudioStreamSettings: {
      type: 'object',
      required: ['enabled'],
      properties: {
        enabled: { type: 'boolean' },
        userToModerate: {
          ...uuid,
          description: 'Owners only, to mute someone else; nobody unmutes someone else.',
        },
      },
      // Unmuting is for oneself only: with userToModerate, enabled must be false.
      if: { required: ['userToModerate'], properties: { userToModerate: { type: 'string' } } },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
      then: { properties: { enabled: { const: false } } },
    },
    SessionDescriptionProtocol: {
      type: 'object',
      description:
        'A complete description (no trickle ICE). At /audio/offer, an offer of the current audio connection with new ICE credentials restarts ICE on it; any other offer replaces the connection.',
      required: ['sdp'],
      properties: { sdp: sdpText },
    },
    MediaStream: {
      type: 'object',
      required: ['userId', 'type'],
      properties: { userId: uuid, type: mediaType },
    },
    SubscribedMediaStream: {
      type: 'object',
      required: ['userId', 'type'],
      description:
        'A stream to watch. `quality` is an extension of the original API: clients without it are unchanged.',
      properties: {
        userId: uuid,
        type: mediaType,
        quality: {
          type: 'string',
          enum: ['low', 'medium', 'high'],
          description:
            'Extension. The highest simulcast layer wanted for this stream (e.g. `low` for a small tile); the ' +
            "subscriber's bandwidth estimate may still pick a lower one. Without it: the highest that fits. " +
            'Subscribing again to a watched stream changes it. Ignored for publishers without simulcast.',
          'x-extension': true,
        },
      },
    },
    SubscriptionUpdates: {
      type: 'object',
      required: ['subscribe', 'unsubscribe'],
      properties: withZodBounds(
        {
          subscribe: { type: 'array', items: ref('SubscribedMediaStream') },
          unsubscribe: { type: 'array', items: ref('MediaStream') },
          iceRestart: {
            type: 'boolean',
            description:
              'Ours, optional: the MEETING_SDP_OFFERED offer also restarts ICE on the subscribe connection (new credentials and candidates), for a client whose network changed or whose connection went disconnected or failed. With it both lists may be empty.',
          },
        },
        subscriptionUpdatesSchema,
      ),
      description: 'At least one stream in all, to subscribe or unsubscribe, unless iceRestart is true.',
      anyOf: [
        { properties: { subscribe: { minItems: 1 } } },
        { properties: { unsubscribe: { minItems: 1 } } },
        { properties: { iceRestart: { const: true } }, required: ['iceRestart'] },
      ],
    },
  },
};
