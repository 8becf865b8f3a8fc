import { type Actor, isUuid } from '@collab-suite/chat-domain';
import type { RequestHandler, Response } from 'express';
import { type Authenticator, readToken } from '../auth/authenticator.js';
import { HttpError } from '../http/http-error.js';

declare global {
  namespace Express {
    interface Locals {
      /** Set by {@link requireChatActor}: the chat user calling. */
      actor?: Actor;
    }
  }
}

/**
 * Middleware: authenticates the caller and makes them a chat actor; the token's `sub` must be the
 * user's UUID. 401 otherwise.
 */
export function requireChatActor(authenticator: Authenticator): RequestHandler {
  return async (request, response, next) => {
    const principal = await authenticator.authenticate(request);
    if (!isUuid(principal.userId)) {
      throw new HttpError(
        401,
        `expected the token's sub to be a user UUID but received ${JSON.stringify(principal.userId)}`,
      );
    }
    const credentials = readToken(request.headers);
    response.locals.actor = {
      userId: principal.userId.toLowerCase(),
      ...(credentials ? { credentials } : {}),
    };
    next();
  };
}

/** The actor set by {@link requireChatActor}. */
export function actorOf(response: Response): Actor {
  const actor = response.locals.actor;
  if (actor === undefined) throw new HttpError(401, 'authentication required');
  return actor;
}
