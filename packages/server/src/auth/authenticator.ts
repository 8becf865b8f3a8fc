import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { type JWTPayload, type JWTVerifyOptions, jwtVerify } from 'jose';
import type { HealthCheck } from '../health/health-check.js';
import { HttpError } from '../http/http-error.js';
import { createJwksKeySource, JwksUnavailableError } from './jwks-key-source.js';
import { createOriginPolicy, type OriginPolicy } from './origin-policy.js';

/** The caller, as established from a verified token. */
export interface Principal {
  /** The token's `sub` claim. */
  userId: string;
  /** The token's `roles` claim (an array of strings, or one string). */
  roles: string[];
  isAdmin: boolean;
}

/** Verifies tokens and reads them from requests. */
export interface Authenticator {
  /**
   * Establishes who is calling, from `Authorization: Bearer <jwt>` or the `ZM_AUTH_TOKEN` cookie.
   * @throws HttpError 401 when there is no token or it does not verify, 403 for a cross-origin
   * write authenticated by the cookie ({@link Authenticator.crossOriginRefusal}), 503 (with
   * Retry-After) when the identity provider's key set cannot be had.
   */
  authenticate(request: Request): Promise<Principal>;
  /** Verifies one token (also used for WebSocket upgrades). @throws HttpError 401 or 503. */
  verify(token: string): Promise<Principal>;
  /**
   * Why the request must be refused (403) as a cross-site request forgery, or undefined: only a
   * request authenticated by the cookie that can change state (any method but GET, HEAD and
   * OPTIONS) or opens a WebSocket, and comes from another origin than this server's or an
   * allowed one, is refused. Bearer-token requests never are.
   */
  crossOriginRefusal(request: IncomingMessage): string | undefined;
  /** The key set as a dependency on `/health/`, in JWKS mode. */
  health?: HealthCheck;
}

/** Name of the cookie a browser client may carry its token in. */
export const authCookieName = 'ZM_AUTH_TOKEN';

/** Whether the request is authenticated by the cookie: it has one and no (or an empty) Authorization header, as {@link readToken} reads it. */
export function usesAuthCookie(headers: { authorization?: string; cookie?: string }): boolean {
  return !headers.authorization && readToken(headers) !== undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The token of a request: the bearer header first, then the cookie. */
export function readToken(headers: { authorization?: string; cookie?: string }): string | undefined {
  const authorization = headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match?.[1];
  }
  for (const part of (headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === authCookieName) {
      return decodeCookieValue(part.slice(separator + 1).trim());
    }
  }
  return undefined;
}

/** A percent-encoded cookie value; a malformed escape leaves it as sent, so it fails verification (401). */
function decodeCookieValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function toPrincipal(payload: JWTPayload): Principal {
  if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
    throw new HttpError(401, 'the token has no subject (sub claim)');
  }
  const claim = payload.roles;
  const roles = Array.isArray(claim)
    ? claim.filter((role) => typeof role === 'string')
    : typeof claim === 'string'
      ? [claim]
      : [];
  return { userId: payload.sub, roles, isAdmin: roles.includes('admin') };
}

/** Options of {@link createAuthenticator}: exactly one key source is used, the JWKS URL first. */
export interface AuthenticatorOptions {
  /** HS256 shared secret. */
  jwtSecret?: string | undefined;
  /** URL of a JSON Web Key Set for RS256/ES256 tokens. */
  jwksUrl?: string | undefined;
  /** Longest one fetch of the JWKS may take, in milliseconds. @default 3000 */
  jwksTimeoutMs?: number | undefined;
  /** The `aud` tokens must carry (AUTH_JWT_AUDIENCE); unset: not checked. */
  audience?: string | undefined;
  /** The `iss` tokens must carry (AUTH_JWT_ISSUER); unset: not checked. */
  issuer?: string | undefined;
  /** Accept tokens without `exp` (AUTH_ALLOW_TOKENS_WITHOUT_EXPIRY). @default false */
  allowTokensWithoutExpiry?: boolean | undefined;
  /** Refuse tokens whose `iat` is older than this many seconds (AUTH_MAX_TOKEN_AGE). @default unset */
  maxTokenAgeSeconds?: number | undefined;
  /** Where cookie-authenticated writes may come from. @default this server's own origin only */
  originPolicy?: OriginPolicy | undefined;
}

function refused(reason: string): HttpError {
  return new HttpError(401, `the token was refused: ${reason}`, { 'WWW-Authenticate': 'Bearer' });
}

/** Creates the authenticator for HS256 secrets or a JWKS URL. */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const claims: JWTVerifyOptions = {
    ...(options.audience === undefined ? {} : { audience: options.audience }),
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.maxTokenAgeSeconds === undefined ? {} : { maxTokenAge: options.maxTokenAgeSeconds }),
    requiredClaims: options.allowTokensWithoutExpiry ? [] : ['exp'],
  };
  let verifyToken: (token: string) => Promise<JWTPayload>;
  let health: HealthCheck | undefined;
  if (options.jwksUrl) {
    const keys = createJwksKeySource({ url: options.jwksUrl, timeoutMs: options.jwksTimeoutMs });
    health = keys.health;
    verifyToken = async (token) =>
      (await jwtVerify(token, keys.getKey, { ...claims, algorithms: ['RS256', 'ES256'] })).payload;
  } else if (options.jwtSecret) {
    const secret = new TextEncoder().encode(options.jwtSecret);
    verifyToken = async (token) =>
      (await jwtVerify(token, secret, { ...claims, algorithms: ['HS256'] })).payload;
  } else {
    throw new Error('an authenticator needs a JWT secret or a JWKS URL');
  }
  const originPolicy = options.originPolicy ?? createOriginPolicy();
  const verify = async (token: string) => {
    let payload: JWTPayload;
    try {
      payload = await verifyToken(token);
    } catch (error) {
      if (error instanceof JwksUnavailableError) {
        throw new HttpError(503, error.message, { 'Retry-After': String(error.retryAfterSeconds) });
      }
      throw refused(error instanceof Error ? error.message : 'invalid token');
    }
    return toPrincipal(payload);
  };
  const crossOriginRefusal = (request: IncomingMessage) => {
    const opensSocket = request.headers.upgrade?.toLowerCase() === 'websocket';
    if (!opensSocket && SAFE_METHODS.has(request.method ?? 'GET')) return undefined;
    if (!usesAuthCookie(request.headers)) return undefined;
    return originPolicy.refusalOf(request);
  };
  return {
    verify,
    crossOriginRefusal,
    ...(health ? { health } : {}),
    async authenticate(request) {
      const token = readToken(request.headers);
      if (!token) {
        throw new HttpError(401, 'authentication required: send a bearer token or the ZM_AUTH_TOKEN cookie', {
          'WWW-Authenticate': 'Bearer',
        });
      }
      const crossOrigin = crossOriginRefusal(request);
      if (crossOrigin !== undefined) throw new HttpError(403, crossOrigin);
      return verify(token);
    },
  };
}
