import { SignJWT } from 'jose';

/** Signs an HS256 token for local use and tests. */
export async function signLocalToken(
  secret: string,
  claims: { userId: string; admin?: boolean; expiresIn?: string },
): Promise<string> {
  return new SignJWT({ roles: claims.admin ? ['admin'] : [] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.userId)
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? '12h')
    .sign(new TextEncoder().encode(secret));
}
