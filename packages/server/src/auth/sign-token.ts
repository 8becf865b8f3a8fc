import { SignJWT } from 'jose';

/**
 * Signs an HS256 token for local use and tests, always with `iat` and `exp` (12 h by default). With
 * `xmppDomain`, the token also carries the user's JID (`jid`: `<userId>@<xmppDomain>`), the claim
 * ejabberd's JWT authentication reads, so the same token logs into XMPP. `audience` and `issuer`
 * set `aud` and `iss` (AUTH_JWT_AUDIENCE, AUTH_JWT_ISSUER).
 */
export async function signLocalToken(
  secret: string,
  claims: {
    userId: string;
    admin?: boolean;
    expiresIn?: string;
    xmppDomain?: string | undefined;
    audience?: string | undefined;
    issuer?: string | undefined;
  },
): Promise<string> {
  const jid = claims.xmppDomain ? { jid: `${claims.userId}@${claims.xmppDomain}` } : {};
  const token = new SignJWT({ roles: claims.admin ? ['admin'] : [], ...jid })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.userId)
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? '12h');
  if (claims.audience !== undefined) token.setAudience(claims.audience);
  if (claims.issuer !== undefined) token.setIssuer(claims.issuer);
  return token.sign(new TextEncoder().encode(secret));
}
