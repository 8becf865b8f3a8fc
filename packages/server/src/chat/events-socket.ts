import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type EventBus, type EventSubscription, isUuid } from '@collab-suite/chat-domain';
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import { type Authenticator, readToken } from '../auth/authenticator.js';

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
  /** Called when a session opens, with the queue id it was given. */
  onSessionOpened?: (userId: string, queueId: string) => void;
}

/** The `/events` WebSocket endpoint. */
export interface EventsSocket {
  /** Accepts upgrades for the endpoint's path on `server`; other paths are left alone. */
  attach(server: Server): void;
  /** Open sessions. */
  size(): number;
  /** Whether a session of `userId` with this queue id is open in this process. */
  hasQueue(userId: string, queueId: string): boolean;
  /** Closes every open session with `code` and `reason`, and keeps accepting new ones. */
  closeSessions(code: number, reason: string): void;
  /** Closes every session. */
  close(): Promise<void>;
}

/** Fixed limits of the endpoint, also stated in its AsyncAPI description. */
export const eventsSocketLimits = {
  /** Largest client message: clients only send pings. A larger one closes the session with 1009. */
  maxClientMessageBytes: 4096,
  /** Default interval of protocol pings. */
  heartbeatMs: 30_000,
} as const;

const refusals = {
  401: { code: 'unauthenticated', reason: 'Unauthorized' },
  404: { code: 'not_found', reason: 'Not Found' },
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
 * (or for this session's queue id) on the {@link EventBus}.
 */
export function createEventsSocket(options: EventsSocketOptions): EventsSocket {
  const path = options.path ?? '/events';
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: eventsSocketLimits.maxClientMessageBytes,
  });
  const alive = new WeakMap<WebSocket, boolean>();
  const queues = new Map<string, string>();

  const open = async (socket: WebSocket, userId: string) => {
    const queueId = randomUUID();
    alive.set(socket, true);
    let subscription: EventSubscription | undefined;
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
    socket.on('close', () => {
      subscription
        ?.unsubscribe()
        .catch((error: unknown) =>
          options.logger.warn({ err: error }, 'could not unsubscribe a closed session'),
        );
      queues.delete(queueId);
      options.onSessionClosed?.(userId, queueId);
    });
    subscription = await options.events.subscribe(userId, (delivery) => {
      if (delivery.queueId !== undefined && delivery.queueId !== queueId) return;
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(delivery.event));
    });
    if (socket.readyState !== socket.OPEN) {
      await subscription.unsubscribe();
      return;
    }
    queues.set(queueId, userId);
    options.onSessionOpened?.(userId, queueId);
    socket.send(JSON.stringify({ type: 'websocketConnected', queueId }));
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
    let userId: string;
    try {
      userId = (await options.authenticator.verify(token)).userId;
    } catch (error) {
      return unauthenticated(socket, error instanceof Error ? error.message : 'the token was refused');
    }
    if (!isUuid(userId)) return unauthenticated(socket, "expected the token's sub to be a user UUID");
    sockets.handleUpgrade(request, socket, head, (webSocket) => {
      open(webSocket, userId.toLowerCase()).catch((error: unknown) => {
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
    hasQueue: (userId, queueId) => queues.get(queueId) === userId,
    closeSessions(code, reason) {
      for (const socket of sockets.clients) socket.close(code, reason);
    },
    async close() {
      clearInterval(heartbeat);
      for (const socket of sockets.clients) socket.close(1001, 'server stopping');
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
    },
  };
}
