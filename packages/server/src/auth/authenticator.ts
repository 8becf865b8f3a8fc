import type { Request } from 'express';
import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { HttpError } from '../http/http-error.js';

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
   * @throws HttpError 401 when there is no token or it does not verify.
   */
  authenticate(request: Request): Promise<Principal>;
  /** Verifies one token (also used for WebSocket upgrades). @throws HttpError 401. */
  verify(token: string): Promise<Principal>;
}

/** Name of the cookie a browser client may carry its token in. */
export const authCookieName = 'ZM_AUTH_TOKEN';

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
}

/** Creates the authenticator for HS256 secrets or a JWKS URL. */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  let verifyToken: (token: string) => Promise<JWTPayload>;
  if (options.jwksUrl) {
    const keys: JWTVerifyGetKey = createRemoteJWKSet(new URL(options.jwksUrl));
    verifyToken = async (token) => (await jwtVerify(token, keys, { algorithms: ['RS256', 'ES256'] })).payload;
  } else if (options.jwtSecret) {
    const secret = new TextEncoder().encode(options.jwtSecret);
    verifyToken = async (token) => (await jwtVerify(token, secret, { algorithms: ['HS256'] })).payload;
  } else {
    throw new Error('an authenticator needs a JWT secret or a JWKS URL');
  }
  const verify = async (token: string) => {
    let payload: JWTPayload;
    try {
      payload = await verifyToken(token);
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'invalid token';
      throw new HttpError(401, `the token was refused: ${reason}`, { 'WWW-Authenticate': 'Bearer' });
    }
    return toPrincipal(payload);
  };
  return {
    verify,
    async authenticate(request) {
      const token = readToken(request.headers);
      if (!token) {
        throw new HttpError(401, 'authentication required: send a bearer token or the ZM_AUTH_TOKEN cookie', {
          'WWW-Authenticate': 'Bearer',
        });
      }
      return verify(token);
    },
  };
}
