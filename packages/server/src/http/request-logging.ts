import { randomUUID } from 'node:crypto';
import type { Express as ExpressApp, Request, RequestHandler, Response } from 'express';
import type { Level, Logger } from 'pino';
import { guardedHandler } from '../process/guarded-handler.js';
import { loggedRequestTarget } from './redact.js';

declare global {
  namespace Express {
    interface Locals {
      /** Set by the error handler: why a request failed, for its log line. */
      failure?: { message: string; code?: string | undefined };
    }
    interface Request {
      /** Set by {@link useRequestLogging}: the request id, also sent back as `X-Request-Id`. */
      id?: string;
      /**
       * Set by {@link useRequestLogging}: a logger whose lines carry `req: { id, method, url }`. It is
       * made on first use, so requests that log nothing do not pay for it.
       */
      log?: Logger;
    }
  }
}

/** A caller's `X-Request-Id` is kept when it is a short token; anything else gets a fresh UUID. */
const callerRequestId = /^[\w.-]{1,128}$/;

function requestIdOf(request: Request): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && callerRequestId.test(incoming) ? incoming : randomUUID();
}

/** The request as log lines show it. Never headers: tokens and cookies must not reach a log. */
function requestBinding(request: Request) {
  return { id: request.id, method: request.method, url: loggedRequestTarget(request) };
}

/** Server errors log at error, refused requests at info, the rest at `successLevel`. */
function levelOf(statusCode: number, successLevel: Level): Level {
  return statusCode >= 500 ? 'error' : statusCode >= 400 ? 'info' : successLevel;
}

/**
 * The client address as `trust proxy` reads it. Read on arrival: once the connection is destroyed
 * (a refused upload, a client gone) `request.socket` is null and `request.ip` throws.
 */
function clientOf(request: Request): string | undefined {
  try {
    return request.ip ?? request.socket.remoteAddress;
  } catch {
    return undefined;
  }
}

/** The authenticated user of a request, when a route authenticated one. */
function userIdOf(response: Response): string | undefined {
  return response.locals.actor?.userId ?? response.locals.principal?.userId;
}

function logCompletion(
  logger: Logger,
  request: Request,
  response: Response,
  arrival: { startedAt: number; client: string | undefined },
  successLevel: Level,
): void {
  const { statusCode } = response;
  const level = levelOf(statusCode, successLevel);
  if (!logger.isLevelEnabled(level)) return;
  const userId = userIdOf(response);
  const fields = {
    res: { statusCode },
    responseTime: Date.now() - arrival.startedAt,
    client: arrival.client,
    ...(userId ? { userId } : {}),
  };
  const log = request.log ?? logger;
  if (statusCode >= 500) {
    // The cause, as the error handler found it: a 503 for a missing LibreOffice says so here.
    log[level](
      { ...fields, cause: response.locals.failure ?? { message: 'no error was reported' } },
      'request errored',
    );
    return;
  }
  const completed = !request.readableAborted && response.writableEnded;
  log[level](fields, completed ? 'request completed' : 'request aborted');
}

/**
 * Gives every request of `app` an id (the caller's `X-Request-Id` when it is a token of at most 128
 * word characters, dots and dashes, else a UUID) sent back as `X-Request-Id`, a lazily made
 * `request.log`, and one line when the response is done, with the client address (as
 * `trust proxy` reads it) and the user when one authenticated: server errors at error with their
 * cause, 4xx at info, the rest at `successLevel` (info). A line below the logger's level costs a
 * level check and the client address, read on arrival so that a request whose connection is
 * destroyed (a refused upload) still logs it. An error thrown while writing the line is logged, never
 * thrown from the 'close' event.
 */
export function useRequestLogging(app: ExpressApp, logger: Logger, successLevel: Level = 'info'): void {
  // On the app's request prototype, so the child logger is only made for requests that log.
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request) {
      const log = logger.child({ req: requestBinding(this) });
      Object.defineProperty(this, 'log', { value: log, writable: true, configurable: true });
      return log;
    },
    set(this: Request, value: Logger | undefined) {
      Object.defineProperty(this, 'log', { value, writable: true, configurable: true });
    },
  });
  const middleware: RequestHandler = (request, response, next) => {
    const id = requestIdOf(request);
    request.id = id;
    response.setHeader('X-Request-Id', id);
    const arrival = { startedAt: Date.now(), client: clientOf(request) };
    response.once(
      'close',
      guardedHandler(logger, 'request log line', () =>
        logCompletion(logger, request, response, arrival, successLevel),
      ),
    );
    next();
  };
  app.use(middleware);
}
