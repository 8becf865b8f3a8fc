import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type EventBus, type EventSubscription, isUuid } from '@collab-suite/chat-domain';
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import { type Authenticator, readToken } from '../auth/authenticator.js';
import { HttpError } from '../http/http-error.js';
import { guardedHandler } from '../process/guarded-handler.js';

/**
 * Where `/events` sessions live when several API nodes serve them, so that a client whose connection
 * dropped may resume its session on any node, not only the one it left.
 */
export interface EventsSessionDirectory {
  /**
   * Takes over the session `queueId` of `userId` that a node (another, or this one) keeps: true when
   * one does, and this node now owns it.
   */
  claim(userId: string, queueId: string): Promise<boolean>;
  /** Whether this node still owns a session it keeps: false once another node claimed it. */
  owns(queueId: string): Promise<boolean>;
  /** A session kept here ended because another node took it over: forget it, its meetings go on. */
  moved(userId: string, queueId: string): void;
}

/** Options of {@link createEventsSocket}. */
export interface EventsSocketOptions {
  authenticator: Authenticator;
  events: EventBus;
  logger: Logger;
  /** Path of the endpoint. @default '/events' */
  path?: string;
  /** Interval of protocol pings that detect dead peers; a peer missing one is dropped. @default 30000 */
  heartbeatMs?: number;
  /** Told when a session closes, e.g. to end the meetings joined from its queue. */
  onSessionClosed?: (userId: string, queueId: string) => void;
  /** Called when a session opens, with the queue id it was given (not again when it is resumed). */
  onSessionOpened?: (userId: string, queueId: string) => void;
  /**
   * How long a session whose connection was lost (its socket closed without a close frame, or missed
   * the heartbeat; not a client's 1000/1001 goodbye, not closed by the server) stays resumable: a new socket of the same user asking for its queue id
   * (`/events?queueId=<uuid>`) gets the session back with the events kept meanwhile, and
   * `onSessionClosed` is told only once this time passed without one. @default 0
   */
  reconnectGraceMs?: number;
  /**
   * With several API nodes: a socket asking for a queue id this node does not keep takes the session
   * over from the node that does (`resumed: true`, then `resync`: the events kept there stay there),
   * and a session whose grace ends here after another node took it over ends without
   * `onSessionClosed`. While the directory cannot answer, a session whose grace ended is kept and
   * the question asked again (every grace, at most 5 s).
   */
  directory?: EventsSessionDirectory;
}

/** The `/events` WebSocket endpoint. */
export interface EventsSocket {
  /** Accepts upgrades for the endpoint's path on `server`; other paths are left alone. */
  attach(server: Server): void;
  /** Open sessions. */
  size(): number;
  /** Whether a session of `userId` with this queue id is open in this process. */
  hasQueue(userId: string, queueId: string): boolean;
  /**
   * Sends every open session a close frame with `code` and `reason` (e.g. 1001 "server stopping");
   * a peer that does not answer it is dropped by the WebSocket library after its close timeout.
   */
  closeSessions(code: number, reason: string): void;
  /** Closes every session with 1001 and stops the endpoint; sessions still open after 2 s are cut. */
  close(): Promise<void>;
}

/** Fixed limits of the endpoint, also stated in its AsyncAPI description. */
export const eventsSocketLimits = {
  /** Largest client message: clients only send pings. A larger one closes the session with 1009. */
  maxClientMessageBytes: 4096,
  /** Default interval of protocol pings. */
  heartbeatMs: 30_000,
  /** Events kept for a dropped session during its grace; past this it gets `resync` on resuming. */
  keptEventsWhileAway: 1000,
} as const;

/** The close code of a socket whose session was resumed by another socket. */
export const SESSION_RESUMED_CLOSE_CODE = 4003;

/** One `/events` session (a queue id); its socket may be away during the reconnection grace. */
interface EventsSession {
  readonly userId: string;
  readonly queueId: string;
  socket: WebSocket | undefined;
  subscription: EventSubscription | undefined;
  /** Events that arrived while the socket was away. */
  kept: object[];
  /** More than {@link eventsSocketLimits.keptEventsWhileAway} arrived while away. */
  overflowed: boolean;
  grace: NodeJS.Timeout | undefined;
  ended: boolean;
}

/** How long {@link EventsSocket.close} waits for peers to answer the close frame before cutting them. */
const closeHandshakeMs = 2000;

function closedOf(socket: WebSocket): Promise<void> {
  if (socket.readyState === socket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

const refusals = {
  401: { code: 'unauthenticated', reason: 'Unauthorized' },
  403: { code: 'forbidden', reason: 'Forbidden' },
  404: { code: 'not_found', reason: 'Not Found' },
  503: { code: 'dependency_unavailable', reason: 'Service Unavailable' },
  500: { code: 'internal', reason: 'Internal Server Error' },
} as const;

function refuse(socket: Duplex, status: keyof typeof refusals, message: string): void {
  const { code, reason } = refusals[status];
  const body = JSON.stringify({ code, message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The `queueId` query parameter of a request target when it is a UUID (lower case), else undefined. */
function queueIdOf(target: string | undefined): string | undefined {
  try {
    const queueId = new URL(target ?? '/', 'http://localhost').searchParams.get('queueId');
    return queueId !== null && isUuid(queueId) ? queueId.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** The path of a request target; undefined when it is not a URL (e.g. `http://[`). */
function pathOf(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

/**
 * Users' live event stream. On open the server sends `{"type":"websocketConnected","queueId"}`,
 * answers `{"type":"ping"}` with `{"type":"pong"}`, and forwards every event published for the user
 * (or for this session's queue id) on the {@link EventBus}, and `{"type":"resync","reason"}` when
 * the bus says events may have been missed.
 */
export function createEventsSocket(options: EventsSocketOptions): EventsSocket {
  const path = options.path ?? '/events';
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: eventsSocketLimits.maxClientMessageBytes,
  });
  const alive = new WeakMap<WebSocket, boolean>();
  const sessions = new Map<string, EventsSession>();
  /** Sockets the server closed (stopping, fencing, a resumed session): no grace for them. */
  const closedByServer = new WeakSet<WebSocket>();
  const graceMs = options.reconnectGraceMs ?? 0;
  /** How often a session whose grace ended asks the directory again while it cannot answer. */
  const directoryRetryMs = Math.max(10, Math.min(graceMs, 5_000));

  /** Sends `frame` to the session's socket, or keeps it while the socket is away or closing. */
  const send = (session: EventsSession, frame: object) => {
    const { socket } = session;
    if (socket !== undefined && socket.readyState === socket.OPEN) {
      socket.send(JSON.stringify(frame));
      return;
    }
    if (session.ended) return;
    if (session.kept.length >= eventsSocketLimits.keptEventsWhileAway) session.overflowed = true;
    else session.kept.push(frame);
  };

  /** Ends a session: its meetings too, unless another node took it over (`moved`). */
  const end = (session: EventsSession, moved = false) => {
    if (session.ended) return;
    session.ended = true;
    clearTimeout(session.grace);
    session.subscription
      ?.unsubscribe()
      .catch((error: unknown) =>
        options.logger.warn({ err: error }, 'could not unsubscribe a closed session'),
      );
    if (sessions.get(session.queueId) === session) sessions.delete(session.queueId);
    if (moved) {
      options.logger.info('an /events session ended here because another node took it over');
      options.directory?.moved(session.userId, session.queueId);
    } else options.onSessionClosed?.(session.userId, session.queueId);
  };

  /**
   * The grace of a dropped session is over: end it, quietly when another node took it over. When
   * the directory cannot tell (Redis away), the session is kept and the question asked again
   * every `directoryRetryMs`: ending it could take a client that resumed on another node meanwhile
   * out of its meetings, while keeping it costs at most the capped events kept for it.
   */
  const graceOver = async (session: EventsSession, grace: NodeJS.Timeout, retrying = false) => {
    const directory = options.directory;
    let owned: boolean | undefined = true;
    if (directory !== undefined) {
      owned = await directory.owns(session.queueId).catch((error: unknown) => {
        // Once per session at warn: an outage must not log every session every few seconds.
        options.logger[retrying ? 'debug' : 'warn'](
          { err: error, retryMs: directoryRetryMs },
          'could not tell whether another node took a session over: kept, asking again later',
        );
        return undefined;
      });
    }
    // A socket may have resumed the session while the directory answered (and dropped again, with
    // a grace of its own): only this grace, still current, ends it.
    if (session.grace !== grace || session.socket !== undefined || session.ended) return;
    if (owned === undefined) {
      const retry: NodeJS.Timeout = setTimeout(() => void graceOver(session, retry, true), directoryRetryMs);
      retry.unref();
      session.grace = retry;
      return;
    }
    end(session, !owned);
  };

  /**
   * The socket of `session` closed: keep the session for the grace when the connection was lost (no
   * close frame: 1005, 1006, or a missed heartbeat), end it now when the client said goodbye (1000,
   * 1001) or the server closed it.
   */
  const socketClosed = (session: EventsSession, socket: WebSocket, code: number) => {
    if (session.socket !== socket) return;
    session.socket = undefined;
    const goodbye = code === 1000 || code === 1001;
    if (graceMs <= 0 || goodbye || closedByServer.has(socket)) {
      end(session);
      return;
    }
    const grace: NodeJS.Timeout = setTimeout(() => void graceOver(session, grace), graceMs);
    grace.unref();
    session.grace = grace;
  };

  /** `resumed` is said only to a socket that asked for a queue id: the original clients' greeting is unchanged. */
  const attach = (session: EventsSession, socket: WebSocket, resumed: boolean | undefined) => {
    alive.set(socket, true);
    session.socket = socket;
    // A peer breaking the protocol (e.g. a message past maxPayload) closes its own session only.
    socket.on('error', (error) => options.logger.debug({ err: error }, 'WebSocket session closed on error'));
    socket.on('pong', () => alive.set(socket, true));
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      try {
        const message = JSON.parse(data.toString()) as { type?: unknown };
        if (message?.type === 'ping') socket.send(JSON.stringify({ type: 'pong' }));
      } catch {
        // Clients send only pings; anything else is ignored.
      }
    });
    socket.on(
      'close',
      guardedHandler(options.logger, 'events session close', (code: number) =>
        socketClosed(session, socket, code),
      ),
    );
    const greeting = { type: 'websocketConnected', queueId: session.queueId };
    socket.send(JSON.stringify(resumed === undefined ? greeting : { ...greeting, resumed }));
    const kept = session.kept.splice(0);
    for (const frame of kept) socket.send(JSON.stringify(frame));
    if (session.overflowed) {
      session.overflowed = false;
      socket.send(
        JSON.stringify({
          type: 'resync',
          reason: 'events_missed_while_away',
          sentDate: new Date().toISOString(),
        }),
      );
    }
  };

  /** Gives `socket` the session it asks for when it is this user's and still kept; false otherwise. */
  const resume = (socket: WebSocket, userId: string, queueId: string | undefined): boolean => {
    const session = queueId === undefined ? undefined : sessions.get(queueId);
    if (session === undefined || session.ended || session.userId !== userId) return false;
    clearTimeout(session.grace);
    session.grace = undefined;
    const previous = session.socket;
    session.socket = undefined;
    if (previous !== undefined) {
      // The old socket has not noticed that its peer went away: the new one takes over.
      closedByServer.add(previous);
      previous.close(SESSION_RESUMED_CLOSE_CODE, 'session resumed on another socket');
    }
    attach(session, socket, true);
    return true;
  };

  /** Claims a session for this node in the directory; a failure is logged, the session goes on. */
  const claim = async (userId: string, queueId: string): Promise<boolean> => {
    if (options.directory === undefined) return false;
    try {
      return await options.directory.claim(userId, queueId);
    } catch (error) {
      options.logger.warn({ err: error }, 'could not look up or claim an /events session');
      return false;
    }
  };

  const open = async (socket: WebSocket, userId: string, requestedQueueId: string | undefined) => {
    if (resume(socket, userId, requestedQueueId)) {
      // It may have been taken over by another node meanwhile: it is this node's again.
      if (requestedQueueId !== undefined) await claim(userId, requestedQueueId);
      return;
    }
    // A session another API node keeps (the client reconnected through the proxy to this one).
    const adopted = requestedQueueId !== undefined && (await claim(userId, requestedQueueId));
    const session: EventsSession = {
      userId,
      queueId: adopted ? requestedQueueId : randomUUID(),
      socket: undefined,
      subscription: undefined,
      kept: [],
      overflowed: false,
      grace: undefined,
      ended: false,
    };
    // Until attached, a socket closing ends nothing: the session is not known yet.
    let gone = false;
    socket.once('close', () => {
      gone = true;
    });
    session.subscription = await options.events.subscribe(
      userId,
      (delivery) => {
        if (delivery.queueId === undefined || delivery.queueId === session.queueId)
          send(session, delivery.event);
      },
      // Events may have been missed (an event bus outage): the client refetches what it shows.
      ({ reason }) => send(session, { type: 'resync', reason, sentDate: new Date().toISOString() }),
    );
    if (gone || socket.readyState !== socket.OPEN) {
      await session.subscription.unsubscribe();
      return;
    }
    sessions.set(session.queueId, session);
    if (adopted) {
      // The events kept for it on the other node stay there: the client refetches.
      session.overflowed = true;
      attach(session, socket, true);
      return;
    }
    options.onSessionOpened?.(userId, session.queueId);
    attach(session, socket, requestedQueueId === undefined ? undefined : false);
  };

  const unauthenticated = (socket: Duplex, message: string) => {
    options.logger.debug({ reason: message }, 'WebSocket upgrade refused');
    refuse(socket, 401, message);
  };

  const upgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const token = readToken(request.headers);
    if (!token)
      return unauthenticated(
        socket,
        'authentication required: send a bearer token or the ZM_AUTH_TOKEN cookie',
      );
    const crossOrigin = options.authenticator.crossOriginRefusal(request);
    if (crossOrigin !== undefined) return refuse(socket, 403, crossOrigin);
    let userId: string;
    try {
      userId = (await options.authenticator.verify(token)).userId;
    } catch (error) {
      // The identity provider's keys could not be had: not the client's fault.
      if (error instanceof HttpError && error.status === 503) return refuse(socket, 503, error.message);
      return unauthenticated(socket, error instanceof Error ? error.message : 'the token was refused');
    }
    if (!isUuid(userId)) return unauthenticated(socket, "expected the token's sub to be a user UUID");
    const requested = queueIdOf(request.url);
    sockets.handleUpgrade(request, socket, head, (webSocket) => {
      open(webSocket, userId.toLowerCase(), requested).catch((error: unknown) => {
        options.logger.error({ err: error }, 'could not subscribe a WebSocket session to events');
        webSocket.close(1011, 'events unavailable');
      });
    });
  };

  const heartbeat = setInterval(() => {
    for (const socket of sockets.clients) {
      if (!alive.get(socket)) {
        socket.terminate();
        continue;
      }
      alive.set(socket, false);
      socket.ping();
    }
  }, options.heartbeatMs ?? eventsSocketLimits.heartbeatMs);
  heartbeat.unref();

  const closeSessions = (code: number, reason: string) => {
    for (const socket of sockets.clients) {
      closedByServer.add(socket);
      socket.close(code, reason);
    }
    // Sessions waiting for their client end now too.
    for (const session of [...sessions.values()]) if (session.socket === undefined) end(session);
  };

  return {
    attach(server) {
      server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        // Node hands over upgraded sockets without an 'error' listener: a peer resetting the
        // connection while we check its token would otherwise crash the process.
        socket.on('error', (error) => options.logger.debug({ err: error }, 'upgrade connection failed'));
        const pathname = pathOf(request.url);
        if (pathname !== path) {
          // Nobody else accepts upgrades here: answer rather than leave the socket open forever.
          if (server.listenerCount('upgrade') === 1)
            refuse(socket, 404, `no WebSocket endpoint at ${pathname ?? 'this address'}`);
          return;
        }
        upgrade(request, socket, head).catch((error: unknown) => {
          options.logger.error({ err: error }, 'WebSocket upgrade failed');
          refuse(socket, 500, 'internal server error');
        });
      });
    },
    size: () => sockets.clients.size,
    hasQueue: (userId, queueId) => {
      const session = sessions.get(queueId);
      return session !== undefined && !session.ended && session.userId === userId;
    },
    closeSessions,
    async close() {
      clearInterval(heartbeat);
      closeSessions(1001, 'server stopping');
      const cut = setTimeout(() => {
        for (const socket of sockets.clients) socket.terminate();
      }, closeHandshakeMs);
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      await Promise.all([...sockets.clients].map((socket) => closedOf(socket)));
      clearTimeout(cut);
    },
  };
}
