import { SignJWT } from 'jose';

/**
 * Signs an HS256 token for local use and tests. With `xmppDomain`, the token also carries the
 * user's JID (`jid`: `<userId>@<xmppDomain>`), the claim ejabberd's JWT authentication reads, so the
 * same token logs into XMPP.
 */
export async function signLocalToken(
  secret: string,
  claims: { userId: string; admin?: boolean; expiresIn?: string; xmppDomain?: string | undefined },
): Promise<string> {
  const jid = claims.xmppDomain ? { jid: `${claims.userId}@${claims.xmppDomain}` } : {};
  return new SignJWT({ roles: claims.admin ? ['admin'] : [], ...jid })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.userId)
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? '12h')
    .sign(new TextEncoder().encode(secret));
}
