import {
  type ChatService,
  type Clock,
  createChatService,
  type MediaServer,
  type MessageDispatcher,
} from '@collab-suite/chat-domain';
import type { XmppMirror } from '@collab-suite/chat-domain/xmpp';
import { Router } from 'express';
import type { FeatureContext, ServerFeature } from '../feature.js';
import { createErrorHandler } from '../http/error-handler.js';
import { HttpError } from '../http/http-error.js';
import { methodNotAllowed } from '../http/method-not-allowed.js';
import { createMeetingsPart, type MeetingsPart, meetingPagePath } from '../meetings/meetings-part.js';
import { databasePoolMetrics } from '../metrics/database-pool-metrics.js';
import { serverVersion } from '../version.js';
import { requireChatActor } from './actor.js';
import { startBlobSweeper } from './blob-sweeper.js';
import { createCapabilitiesRoute } from './capabilities-route.js';
import { chatOpenApi } from './chat-openapi.js';
import { chatPagePath, createChatPageRouter } from './chat-page.js';
import { type ChatPorts, chatDatabaseKind, chatPortsFromConfig } from './chat-ports.js';
import { chatErrorBody } from './error-status.js';
import { buildEventsAsyncApi } from './events-asyncapi.js';
import { createEventsSocket } from './events-socket.js';
import { createFileRoutes } from './file-routes.js';
import { createRoomCreationLimit } from './room-creation-limit.js';
import { createRoomRoutes } from './room-routes.js';
import { startXmppMirrorPart } from './xmpp-mirror-part.js';

/** Ports tests may replace; the rest comes from the configuration. */
export interface ChatFeatureOverrides extends Partial<ChatPorts> {
  dispatcher?: MessageDispatcher;
  clock?: Clock;
  /** @default the in-process SFU */
  media?: MediaServer;
}

/** The chat API feature plus its service, for tests and benchmarks. */
export type ChatFeature = ServerFeature & {
  service: ChatService;
  meetings: MeetingsPart;
  /** The XMPP mirror, when CHAT_XMPP_URL is set. */
  xmppMirror: XmppMirror | undefined;
};

/** The chat rooms API at `/` (`/rooms`, `/attachments`) and the `/events` WebSocket. */
export async function createChatFeature(
  context: FeatureContext,
  overrides: ChatFeatureOverrides = {},
): Promise<ChatFeature> {
  const { config, logger, authenticator } = context;
  const ports = await chatPortsFromConfig(config, logger, overrides);
  let socket: ReturnType<typeof createEventsSocket> | undefined;
  const meetings = await createMeetingsPart({
    config,
    logger,
    store: ports.store,
    events: ports.events,
    ...(overrides.clock ? { clock: overrides.clock } : {}),
    ...(overrides.media ? { media: overrides.media } : {}),
    ...(config.chat.redisUrl
      ? {}
      : { hasQueue: (userId, queueId) => socket?.hasQueue(userId, queueId) ?? false }),
    closeSessions: (code, reason) => socket?.closeSessions(code, reason),
  });
  // Without XMPP the store stops queueing room changes: nobody would apply them.
  const xmpp = config.chat.xmpp
    ? await startXmppMirrorPart(config.chat.xmpp, ports.store, logger, `node-${config.cluster.nodeId}`)
    : await ports.store.setMirrorOutboxEnabled(false);
  const service = createChatService({
    ...ports,
    roomObserver: meetings.service.roomObserver,
    ...(xmpp ? { dispatcher: xmpp.mirror } : {}),
    ...(overrides.dispatcher ? { dispatcher: overrides.dispatcher } : {}),
    ...(overrides.clock ? { clock: overrides.clock } : {}),
    limits: {
      maxAttachmentBytes: config.chat.maxAttachmentBytes,
      maxPictureBytes: config.chat.maxPictureBytes,
      maxRoomMembers: config.chat.maxRoomMembers,
      maxRoomsPerUser: config.chat.maxRoomsPerUser,
      maxForwardedMessages: config.chat.maxForwardedMessages,
    },
    onBackgroundError: (error, during) => logger.error({ err: error, during }, 'chat background task failed'),
  });
  await service.purgeDeletedBlobs();
  const sweeper = startBlobSweeper(service, config.chat.blobSweepSeconds, logger);
  const events = createEventsSocket({
    authenticator,
    events: ports.events,
    logger,
    onSessionClosed: (userId, queueId) => meetings.queueClosed(userId, queueId),
    onSessionOpened: (userId, queueId) => meetings.queueOpened(userId, queueId),
    reconnectGraceMs: config.meetings.reconnectGraceMs,
    ...(meetings.sessionDirectory ? { directory: meetings.sessionDirectory } : {}),
  });
  socket = events;
  const chatPaths = ['/rooms', '/attachments', '/meetings', '/users'];

  const router = Router();
  router.use(meetings.pageRouter);
  const requireActor = requireChatActor(authenticator);
  router.use(
    createChatPageRouter(config.chat.xmpp, {
      directoryFile: config.chat.pageDirectoryFile,
      requireUser: requireActor,
    }),
  );
  router.use(chatPaths, requireActor);
  const creationLimit = createRoomCreationLimit({
    perMinute: config.chat.roomCreationsPerMinute,
    redisUrl: config.chat.redisUrl,
    redisTimeoutMs: config.chat.redisTimeoutMs,
    logger,
  });
  router.use(createRoomRoutes(service, creationLimit.middleware));
  router.use(createFileRoutes(service));
  router.use(createCapabilitiesRoute(config));
  router.use(meetings.router);
  router.use(chatPaths, methodNotAllowed({ ...chatOpenApi.paths, ...meetings.openapi.paths }));
  router.use(chatPaths, (request, _response, next) => {
    next(new HttpError(404, `no chat route for ${request.method} ${request.originalUrl.split('?')[0]}`));
  });
  router.use(chatPaths, createErrorHandler(chatErrorBody));

  let closing: Promise<void> | undefined;
  return {
    name: 'chat',
    basePath: '/',
    paths: [...chatPaths, meetingPagePath, chatPagePath],
    router,
    openapi: {
      paths: { ...chatOpenApi.paths, ...meetings.openapi.paths },
      schemas: { ...chatOpenApi.schemas, ...meetings.openapi.schemas },
      tags: [...(chatOpenApi.tags ?? []), ...(meetings.openapi.tags ?? [])],
    },
    asyncapi: buildEventsAsyncApi({ version: serverVersion, publicUrl: config.publicUrl }),
    service,
    meetings,
    xmppMirror: xmpp?.mirror,
    metrics: [...databasePoolMetrics('chat', ports.store), ...meetings.metrics],
    health: [
      {
        name: 'chat-database',
        required: true,
        unavailableStatus: 503,
        unavailableMessage: 'the chat database does not answer',
        check: async () => {
          try {
            await ports.store.listPendingBlobDeletions(1);
            // A write that changes nothing: SQLite's writes run on a thread of their own, which must answer too.
            await ports.store.forgetPendingBlobDeletions([]);
            return { live: true, ready: true, details: { kind: chatDatabaseKind(config.chat.databaseUrl) } };
          } catch (error) {
            // The store's message names the failure (PostgreSQL away...), never the connection URL.
            const reason = error instanceof Error ? error.message : String(error);
            return {
              live: true,
              ready: false,
              details: { kind: chatDatabaseKind(config.chat.databaseUrl), error: reason },
            };
          }
        },
      },
      {
        name: 'chat-events',
        // With Redis, events raised on one instance reach sockets on the others only through it:
        // an instance that cannot reach Redis loses them, so it should not take traffic.
        required: Boolean(config.chat.redisUrl),
        unavailableStatus: 503,
        unavailableMessage: 'the chat event bus (Redis) does not answer',
        check: async () => {
          const health = await ports.events.checkHealth();
          const bus = config.chat.redisUrl ? 'redis' : 'in-process';
          return {
            live: true,
            ready: health.ready,
            details: { bus, sockets: events.size(), ...(health.reason ? { error: health.reason } : {}) },
          };
        },
      },
      meetings.health,
      ...(xmpp ? [xmpp.health] : []),
    ],
    attach: (server) => events.attach(server),
    drain: () => events.closeSessions(1001, 'server stopping'),
    close() {
      closing ??= (async () => {
        await events.close();
        await sweeper.stop();
        creationLimit.close();
        await meetings.close();
        await xmpp?.mirror.close();
        await Promise.allSettled([ports.events.close(), ports.store.close()]);
      })();
      return closing;
    },
  };
}
