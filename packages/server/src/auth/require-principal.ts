import type { RequestHandler } from 'express';
import { HttpError } from '../http/http-error.js';
import type { Authenticator, Principal } from './authenticator.js';

declare global {
  namespace Express {
    interface Locals {
      /** Set by {@link requireUser} and {@link requireAdmin}. */
      principal?: Principal;
    }
  }
}

/** Middleware: authenticates the caller into `response.locals.principal`, or fails with 401. */
export function requireUser(authenticator: Authenticator): RequestHandler {
  return async (request, response, next) => {
    response.locals.principal = await authenticator.authenticate(request);
    next();
  };
}

/** Middleware: as {@link requireUser}, then 403 unless the token's roles contain `admin`. */
export function requireAdmin(authenticator: Authenticator): RequestHandler {
  return async (request, response, next) => {
    const principal = await authenticator.authenticate(request);
    if (!principal.isAdmin) throw new HttpError(403, 'this operation is for administrators only');
    response.locals.principal = principal;
    next();
  };
}
