import type { ChatEventType } from '@collab-suite/chat-domain';
import { eventDescriptions, eventPayloadSchema, type JsonSchema } from './event-schemas.js';
import { eventsSocketLimits } from './events-socket.js';

/** An AsyncAPI 3.0 document, as served at `/asyncapi.json`. */
export interface AsyncApiDocument {
  asyncapi: '3.0.0';
  info: {
    title: string;
    version: string;
    description: string;
    license: { name: string; url: string };
  };
  defaultContentType: 'application/json';
  servers: Record<string, Record<string, unknown>>;
  channels: Record<string, Record<string, unknown>>;
  operations: Record<string, Record<string, unknown>>;
  components: {
    messages: Record<string, Record<string, unknown>>;
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, Record<string, unknown>>;
  };
}

/** Options of {@link buildEventsAsyncApi}. */
export interface EventsAsyncApiOptions {
  /** The server's version, as in the OpenAPI document. */
  version: string;
  /** PUBLIC_URL: the server entry then names its host; without it, a `host` variable. */
  publicUrl?: string | undefined;
}

/** Frames of the protocol itself, beside the events: their names as they appear in `type`. */
const controlMessages = {
  websocketConnected: {
    title: 'Connected',
    summary: 'First frame of every session: the queue id that names this session in meeting requests.',
    payload: {
      type: 'object',
      required: ['type', 'queueId'],
      properties: {
        type: { const: 'websocketConnected' },
        queueId: { type: 'string', format: 'uuid' },
        resumed: {
          type: 'boolean',
          description:
            'Ours, only to a socket that asked for a queue id with `?queueId=`: true when it resumed that session (its meeting participations kept, the events of the time away follow); false when it got a new session instead (that queue is gone: join again).',
        },
      },
      additionalProperties: false,
    },
  },
  ping: {
    title: 'Ping',
    summary: 'A client keep-alive; the server answers `pong`. Other client frames are ignored.',
    payload: {
      type: 'object',
      required: ['type'],
      properties: { type: { const: 'ping' } },
    },
  },
  resync: {
    title: 'Resync',
    summary:
      'Events may have been missed: refetch what the client shows (rooms, members, meetings). Sent after the event bus (Redis) was away.',
    payload: {
      type: 'object',
      required: ['type', 'reason', 'sentDate'],
      properties: {
        type: { const: 'resync' },
        reason: {
          type: 'string',
          enum: ['events_dropped', 'subscription_interrupted', 'events_missed_while_away'],
          description:
            "`events_dropped`: events for the user were dropped past the server's backlog (CHAT_EVENT_BACKLOG_MAX, CHAT_EVENT_BACKLOG_SECONDS) while Redis was away. `subscription_interrupted`: this server was not listening for the user's events for a while (its Redis connection was down, or the session opened while it was), so events raised on other servers meanwhile passed it by. `events_missed_while_away`: a resumed session had more events while its socket was away than the server keeps (" +
            eventsSocketLimits.keptEventsWhileAway +
            ').',
        },
        sentDate: { type: 'string', format: 'date-time' },
      },
      additionalProperties: false,
    },
  },
  pong: {
    title: 'Pong',
    summary: 'The answer to `ping`.',
    payload: {
      type: 'object',
      required: ['type'],
      properties: { type: { const: 'pong' } },
      additionalProperties: false,
    },
  },
} satisfies Record<string, { title: string; summary: string; payload: JsonSchema }>;

const channelDescription = `One WebSocket per client session. Every frame is a JSON text frame.

**Handshake.** \`GET /events\` with \`Upgrade: websocket\` and a token: \`Authorization: Bearer <JWT>\` or
the \`ZM_AUTH_TOKEN\` cookie; the token's \`sub\` must be the user's UUID. Refusals are plain HTTP answers
with a JSON body \`{"code","message"}\`: 401 without a valid token, 403 when the cookie authenticates a
handshake whose \`Origin\` is not the server's (PUBLIC_URL, ALLOWED_ORIGINS), 404 for another path, 503
while the identity provider's key set (AUTH_JWKS_URL) cannot be fetched.

**Session.** The server first sends \`websocketConnected\` with the session's \`queueId\`, then every
event for the user (or for this session's queue) with \`type\` and \`sentDate\`. A user with several
sessions gets each event on each of them. \`resync\` tells the client that events may have been missed
(the event bus was away); it refetches what it shows. A session opened while the event bus is away
is accepted, and gets \`resync\` once its subscription is made. The server sends WebSocket ping frames every
${eventsSocketLimits.heartbeatMs / 1000} s; a client that has not answered one by the next is dropped.

**Close codes.** 1001: the server is stopping. 1009: a client frame was larger than
${eventsSocketLimits.maxClientMessageBytes} bytes. 1011: the server could not subscribe the session to
events. 4002 (\`node fenced, reconnect\`): this API node had been taken for dead by another (it was
frozen or cut off), which ended the meetings joined from its sessions; reconnect (to any node) and
join again. 4003: another socket resumed this session. A session closed without a code (1006) missed the heartbeat
or lost its connection.

**Reconnecting.** A session whose connection was lost (closed without a close frame, or a missed
heartbeat; not a client's own 1000/1001 close, not one the server closed) is kept for MEETING_RECONNECT_GRACE_SECONDS (15 s by default) with its meeting participations
and the events that arrive meanwhile (up to ${eventsSocketLimits.keptEventsWhileAway}). A new socket of the same user that asks
for it, \`GET /events?queueId=<queueId>\`, resumes it: \`websocketConnected\` says \`"resumed": true\`
with the same queue id, then the kept events follow. After the grace, or for an unknown queue id (a
new session, \`"resumed": false\`), the session is closed: closing a session ends the meetings joined
from its queue. With several API nodes, a reconnection may reach another node: it takes the session
over (\`"resumed": true\`) and sends \`resync\` at once, since the events kept meanwhile stayed on the
old node.`;

const eventTypes = Object.keys(eventDescriptions) as ChatEventType[];

function messageOf(name: string, fields: { title: string; summary: string; description?: string }) {
  return {
    name,
    ...fields,
    contentType: 'application/json',
    payload: { $ref: `#/components/schemas/${name}` },
  };
}

function serverOf(publicUrl: string | undefined): Record<string, unknown> {
  const security = [
    { $ref: '#/components/securitySchemes/bearer' },
    { $ref: '#/components/securitySchemes/cookie' },
  ];
  if (publicUrl === undefined) {
    return {
      host: '{host}',
      protocol: 'ws',
      description: 'This server (PUBLIC_URL is not set); use wss behind TLS.',
      variables: { host: { default: 'localhost:8080', description: 'Host and port of the server.' } },
      security,
    };
  }
  const url = new URL(publicUrl);
  const pathname = url.pathname.replace(/\/+$/, '');
  return {
    host: url.host,
    protocol: url.protocol === 'https:' ? 'wss' : 'ws',
    ...(pathname === '' ? {} : { pathname }),
    description: 'PUBLIC_URL of this server',
    security,
  };
}

const reference = (path: string) => ({ $ref: path });

/**
 * The AsyncAPI 3.0 description of `/events`: the handshake and close codes, every event type with
 * its payload (from {@link eventDescriptions}), and the `websocketConnected`, `resync`, `ping` and
 * `pong` frames. Operations are the server's: it sends events and receives pings.
 */
export function buildEventsAsyncApi(options: EventsAsyncApiOptions): AsyncApiDocument {
  const messages: AsyncApiDocument['components']['messages'] = {};
  const schemas: AsyncApiDocument['components']['schemas'] = {};
  for (const type of eventTypes) {
    const { summary, recipients } = eventDescriptions[type];
    messages[type] = messageOf(type, { title: type, summary, description: `Sent to ${recipients}.` });
    schemas[type] = eventPayloadSchema(type);
  }
  for (const [name, { payload, ...fields }] of Object.entries(controlMessages)) {
    messages[name] = messageOf(name, fields);
    schemas[name] = payload;
  }
  const inChannel = (name: string) => reference(`#/channels/events/messages/${name}`);
  const channel = reference('#/channels/events');
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'collab-suite reference server: /events',
      version: options.version,
      description:
        "Users' live events (rooms, room messages, meetings) on the `/events` WebSocket. The REST API is described at `/openapi.json`.",
      license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    },
    defaultContentType: 'application/json',
    servers: { public: serverOf(options.publicUrl) },
    channels: {
      events: {
        address: '/events',
        title: 'User events',
        description: channelDescription,
        messages: Object.fromEntries(
          Object.keys(messages).map((name) => [name, reference(`#/components/messages/${name}`)]),
        ),
        bindings: { ws: { method: 'GET', bindingVersion: '0.1.0' } },
      },
    },
    operations: {
      greet: {
        action: 'send',
        channel,
        title: 'Greet a new session',
        summary: 'Sends `websocketConnected` once the session is subscribed to its events.',
        messages: [inChannel('websocketConnected')],
      },
      sendEvents: {
        action: 'send',
        channel,
        title: 'Deliver events',
        summary: 'Sends each event published for the user, or for this session only.',
        messages: eventTypes.map(inChannel),
      },
      askResync: {
        action: 'send',
        channel,
        title: 'Ask for a resync',
        summary: 'Sends `resync` when events for the user may have been missed.',
        messages: [inChannel('resync')],
      },
      answerPing: {
        action: 'receive',
        channel,
        title: 'Answer pings',
        summary: 'Receives `ping` and answers `pong` on the same socket.',
        messages: [inChannel('ping')],
        reply: { channel, messages: [inChannel('pong')] },
      },
    },
    components: {
      messages,
      schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A JWT whose `sub` is the user UUID.',
        },
        cookie: {
          type: 'httpApiKey',
          in: 'cookie',
          name: 'ZM_AUTH_TOKEN',
          description: 'The same JWT in a cookie.',
        },
      },
    },
  };
}
