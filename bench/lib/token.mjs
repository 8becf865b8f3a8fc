// A bearer token the reference server accepts with AUTH_JWT_SECRET=secret: HS256, `sub` the user.
import { createHmac } from 'node:crypto';

/** Signs a one-hour HS256 token for `userId`, with `claims` added (e.g. the `jid` ejabberd reads). */
export function hs256Token(secret, userId, claims = {}) {
  const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: userId, roles: [], iat: now, exp: now + 3600, ...claims })}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}
