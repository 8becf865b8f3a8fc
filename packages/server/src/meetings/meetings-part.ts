import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type ChatStore,
  type Clock,
  createMeetingService,
  type EventBus,
  hasMeetingCoordination,
  type MediaServer,
  type MeetingService,
} from '@collab-suite/chat-domain';
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type { EventsSessionDirectory } from '../chat/events-socket.js';
import type { ServerConfig } from '../config.js';
import type { HealthCheck } from '../health/health-check.js';
import { pageSecurityHeaders } from '../http/page-security-headers.js';
import type { FeatureMetric } from '../metrics/feature-metric.js';
import type { ApiNodePresence } from './media/api-node-presence.js';
import { meetingMediaForRoles } from './media/media-for-roles.js';
import { createMeetingRoutes } from './meeting-routes.js';
import { meetingsOpenApi } from './meetings-openapi.js';
import { sfuMetrics } from './sfu-metrics.js';

/** What the chat feature mounts for meetings. */
export interface MeetingsPart {
  service: MeetingService;
  media: MediaServer;
  /** The meeting routes (auth runs before them). */
  router: Router;
  /** `/examples/meeting/`: the meeting page, without auth (it asks for a token). */
  pageRouter: Router;
  openapi: typeof meetingsOpenApi;
  health: HealthCheck;
  /** The SFU's series on `/metrics`, when it runs in this process. */
  metrics: FeatureMetric[];
  /** Pass to the events socket: a closed session leaves its meetings. */
  queueClosed(userId: string, queueId: string): void;
  /** Pass to the events socket: an API node among others records its sessions. */
  queueOpened(userId: string, queueId: string): void;
  /**
   * Pass to the events socket: with several API nodes, where sessions live, so a client may resume
   * its session on any node; undefined on one node.
   */
  readonly sessionDirectory: EventsSessionDirectory | undefined;
  close(): Promise<void>;
}

/** Options of {@link createMeetingsPart}. */
export interface MeetingsPartOptions {
  config: ServerConfig;
  logger: Logger;
  store: ChatStore;
  events: EventBus;
  clock?: Clock;
  /** @default the SFU configured from `config.meetings`, in a worker thread of this process */
  media?: MediaServer;
  /** Whether a queue is open, when the events stay in this process. */
  hasQueue?: (userId: string, queueId: string) => boolean;
  /**
   * Closes every `/events` socket of this process with {@link NODE_FENCED_CLOSE_CODE}: called when
   * this API node learns that another took it for dead and ended its sessions.
   */
  closeSessions?: (code: number, reason: string) => void;
}

/**
 * The close code of `/events` sockets of an API node that another node took for dead (it was frozen
 * or cut off): their meetings were left; the client reconnects (to any node) and joins again.
 */
export const NODE_FENCED_CLOSE_CODE = 4002;

/** Where {@link MeetingsPart.pageRouter} serves the meeting page. */
export const meetingPagePath = '/examples/meeting';

/** The folder of `examples/meeting-web`, from the sources or from `dist`. */
function meetingPageFolder(): string | undefined {
  const candidates = ['../../../../examples/meeting-web/', '../../../examples/meeting-web/'];
  return candidates
    .map((candidate) => fileURLToPath(new URL(candidate, import.meta.url)))
    .find((folder) => existsSync(`${folder}index.html`));
}

/**
 * Meetings: the domain service on the chat store and bus, the SFU behind its media port, routes,
 * the meeting page, and a timer removing expired scheduled meetings. Meetings left active by a
 * previous run are stopped first when `config.meetings.stopActiveAtStart`: their media lived in
 * that process.
 */
export async function createMeetingsPart(options: MeetingsPartOptions): Promise<MeetingsPart> {
  const { config, logger } = options;
  const coordination =
    config.cluster.roles.includes('media') || !hasMeetingCoordination(options.store)
      ? undefined
      : options.store;
  const placed = await meetingMediaForRoles(config, logger, options.media, coordination);
  const { media } = placed;
  let presence: ApiNodePresence | undefined;
  const service = createMeetingService({
    store: options.store,
    events: options.events,
    media,
    ...(placed.locks ? { locks: placed.locks } : {}),
    // Several API nodes on PostgreSQL: writes under a meeting's lock carry its fencing token, and a
    // node that may have been taken for dead does not act.
    ...(placed.locks && coordination ? { fencing: true, admit: () => presence?.assertCurrent() } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    limits: { maxParticipants: config.meetings.maxParticipants },
    onBackgroundError: (error, during) =>
      logger.error({ err: error, during }, 'meeting background task failed'),
  });
  presence = placed.startPresence?.(
    (userId, queueId) => service.queueClosed(userId, queueId),
    () => options.closeSessions?.(NODE_FENCED_CLOSE_CODE, 'node fenced, reconnect'),
  );
  const scoped = presence;
  // A join carries the registration it came under: it may not land once this node fenced itself.
  const routed: MeetingService = scoped
    ? {
        ...service,
        joinMeeting: (actor, meetingId, queueId, body) =>
          scoped.scope(async () => {
            if (queueId !== undefined) scoped.assertSessionOpen(actor.userId, queueId.toLowerCase());
            return service.joinMeeting(actor, meetingId, queueId, body);
          }),
      }
    : service;
  if (config.meetings.stopActiveAtStart) {
    const stopped = await service.stopAllActive();
    if (stopped > 0) logger.info({ stopped }, 'stopped meetings left active by a previous run');
  }
  const sweep = setInterval(() => {
    service
      .removeExpiredMeetings()
      .catch((error: unknown) => logger.error({ err: error }, 'expired meeting sweep failed'));
  }, config.meetings.expirySweepMs);
  sweep.unref();

  const pageRouter = express.Router();
  const folder = meetingPageFolder();
  if (folder !== undefined) {
    pageRouter.use(meetingPagePath, pageSecurityHeaders(), express.static(folder, { index: 'index.html' }));
  }

  const leaving = new Set<Promise<void>>();
  let closing: Promise<void> | undefined;
  return {
    service,
    media,
    router: createMeetingRoutes({
      service: routed,
      ...(options.hasQueue ? { hasQueue: options.hasQueue } : {}),
    }),
    pageRouter,
    openapi: meetingsOpenApi,
    metrics: placed.sfuStats ? sfuMetrics(() => placed.sfuStats?.() ?? Promise.resolve(undefined)) : [],
    health: {
      name: 'meetings-media',
      required: false,
      check: () => placed.health(),
    },
    queueOpened(userId, queueId) {
      presence?.sessionOpened(userId, queueId);
    },
    get sessionDirectory(): EventsSessionDirectory | undefined {
      const here = presence;
      if (here === undefined) return undefined;
      return {
        claim: (userId, queueId) => here.claimSession(userId, queueId),
        owns: (queueId) => here.ownsSession(queueId),
        moved: (userId, queueId) => here.sessionMoved(userId, queueId),
      };
    },
    queueClosed(userId, queueId) {
      // Sessions closing because the server stops: the next start, or another API node, ends them.
      if (closing !== undefined) return;
      presence?.sessionClosed(userId, queueId);
      const left = service.queueClosed(userId, queueId).catch((error: unknown) => {
        logger.error({ err: error, userId }, 'could not end the meetings of a closed session');
      });
      leaving.add(left);
      void left.finally(() => leaving.delete(left));
    },
    close() {
      closing ??= (async () => {
        clearInterval(sweep);
        await Promise.allSettled([...leaving]);
        service.close();
        await placed.close();
      })();
      return closing;
    },
  };
}
