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

/** Options of {@link requireChatActor}. */
export interface ChatActorOptions {
  /**
   * How long a verified token is trusted without verifying its signature again (never past its
   * `exp`): verification is a large share of a small request's cost. @default 60000
   */
  verifiedTokenTtlMs?: number;
  /** Most verified tokens remembered; past it the memory starts over. @default 10000 */
  maxVerifiedTokens?: number;
}

/** When a token expires, from its (already verified) payload; undefined without `exp`. */
function expiryOf(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The original answers 401 "Invalid queue id" to any call whose optional `queue-id` header is not
 * a UUID, before anything else: a client with a broken session id learns it on its first call.
 * @throws HttpError 401
 */
function assertQueueIdHeader(value: string | string[] | undefined): void {
  if (value === undefined) return;
  if (typeof value === 'string' && isUuid(value.trim())) return;
  throw new HttpError(
    401,
    `invalid queue id: expected the queueId of your /events session (a UUID) in queue-id but received ${JSON.stringify(value).slice(0, 80)}`,
  );
}

/**
 * Middleware: authenticates the caller and makes them a chat actor; the token's `sub` must be the
 * user's UUID. 401 otherwise. A token that verified recently is trusted again without re-checking
 * its signature until `verifiedTokenTtlMs` or its expiry, whichever comes first.
 */
export function requireChatActor(
  authenticator: Authenticator,
  options: ChatActorOptions = {},
): RequestHandler {
  const ttlMs = options.verifiedTokenTtlMs ?? 60_000;
  const maxTokens = options.maxVerifiedTokens ?? 10_000;
  const verified = new Map<string, { actor: Actor; until: number }>();
  return async (request, response, next) => {
    assertQueueIdHeader(request.headers['queue-id']);
    // Before the memory of verified tokens, which would otherwise skip authenticate()'s own check.
    const crossOrigin = authenticator.crossOriginRefusal(request);
    if (crossOrigin !== undefined) throw new HttpError(403, crossOrigin);
    const credentials = readToken(request.headers);
    const remembered = credentials === undefined ? undefined : verified.get(credentials);
    if (remembered && remembered.until > Date.now()) {
      response.locals.actor = remembered.actor;
      next();
      return;
    }
    const principal = await authenticator.authenticate(request);
    if (!isUuid(principal.userId)) {
      throw new HttpError(
        401,
        `expected the token's sub to be a user UUID but received ${JSON.stringify(principal.userId)}`,
      );
    }
    const actor: Actor = { userId: principal.userId.toLowerCase(), ...(credentials ? { credentials } : {}) };
    if (credentials !== undefined && ttlMs > 0) {
      if (verified.size >= maxTokens) verified.clear();
      verified.set(credentials, {
        actor,
        until: Math.min(Date.now() + ttlMs, expiryOf(credentials) ?? Number.POSITIVE_INFINITY),
      });
    }
    response.locals.actor = actor;
    next();
  };
}

/** The actor set by {@link requireChatActor}. */
export function actorOf(response: Response): Actor {
  const actor = response.locals.actor;
  if (actor === undefined) throw new HttpError(401, 'authentication required');
  return actor;
}
