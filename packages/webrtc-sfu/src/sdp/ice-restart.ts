// Telling an ICE restart from a new connection. A client whose network changed calls restartIce()
// (or createOffer({ iceRestart: true })) on the connection it has: its next offer carries new
// `a=ice-ufrag`/`a=ice-pwd`, the same DTLS certificate (the same `a=fingerprint`), and either the
// same session id in `o=` (browsers keep it for the life of a connection, RFC 8829 5.2.2) or a
// sender SSRC in common (werift may leave the RTX one out of a later offer). Fingerprints alone cannot tell: werift gives every connection of a process
// one certificate, and makes a new `o=` session id per description.

/** The first value of `a=<name>:` in a session description (session or media level), or undefined. */
function firstAttribute(sdp: string, name: string): string | undefined {
  const prefix = `a=${name}:`;
  for (const line of sdp.split(/\r?\n/)) {
    if (line.startsWith(prefix)) return line.slice(prefix.length).trim();
  }
  return undefined;
}

/** The ICE credentials, DTLS fingerprint, `o=` session id and sender SSRCs of a description. Pure. */
export interface TransportIdentity {
  ufrag: string | undefined;
  password: string | undefined;
  /** `<algorithm> <hex>`, compared without regard to case. */
  fingerprint: string | undefined;
  /** The second field of `o=`. */
  sessionId: string | undefined;
  /** The distinct `a=ssrc:` values. */
  ssrcs: ReadonlySet<string>;
}

/** Reads {@link TransportIdentity} from a session description. Pure. */
export function transportIdentity(sdp: string): TransportIdentity {
  const lines = sdp.split(/\r?\n/);
  const origin = lines.find((line) => line.startsWith('o='));
  const ssrcs = new Set<string>();
  for (const line of lines) {
    const match = /^a=ssrc:(\d+)/.exec(line);
    if (match?.[1] !== undefined) ssrcs.add(match[1]);
  }
  return {
    ufrag: firstAttribute(sdp, 'ice-ufrag'),
    password: firstAttribute(sdp, 'ice-pwd'),
    fingerprint: firstAttribute(sdp, 'fingerprint')?.toLowerCase(),
    sessionId: origin?.slice(2).split(' ')[1],
    ssrcs,
  };
}

/**
 * Whether `offer` restarts ICE on the connection whose last remote description was `current`: the
 * same client connection (same DTLS fingerprint, and the same `o=` session id or a sender SSRC in
 * common) with a new ICE username fragment or password. Pure.
 */
export function isIceRestartOffer(current: string | undefined, offer: string): boolean {
  if (current === undefined) return false;
  const before = transportIdentity(current);
  const after = transportIdentity(offer);
  if (before.fingerprint === undefined || before.fingerprint !== after.fingerprint) return false;
  const sameSession = before.sessionId !== undefined && before.sessionId === after.sessionId;
  const sameSenders = [...after.ssrcs].some((ssrc) => before.ssrcs.has(ssrc));
  if (!sameSession && !sameSenders) return false;
  return before.ufrag !== after.ufrag || before.password !== after.password;
}
