/** RFC 3711 AES_CM_128_HMAC_SHA1_80, as werift and DTLS-SRTP number it. */
export declare const AES_CM_128_HMAC_SHA1_80: 1;
/** RFC 7714 AEAD_AES_128_GCM. */
export declare const AEAD_AES_128_GCM: 7;

/**
 * Protects outgoing RTP packets of one SRTP session (one direction of one DTLS-SRTP transport)
 * with OpenSSL cipher contexts created once, where Node's crypto module needs a new cipher object
 * per packet.
 */
export declare class SrtpSealer {
  /** The session keys as derived from the DTLS master key (RFC 3711 section 4.3). */
  constructor(
    profile: typeof AES_CM_128_HMAC_SHA1_80 | typeof AEAD_AES_128_GCM,
    sessionKey: Buffer,
    sessionSalt: Buffer,
    sessionAuthKey?: Buffer,
  );
  readonly profile: number;
  /** Bytes the tag adds after the payload: 10 (AES-CM) or 16 (AES-GCM). */
  readonly tagLength: number;
  /**
   * Encrypts `payload` into `packet` after its RTP header (`headerLength` bytes, SSRC and sequence
   * number read from it) and writes the tag after it. Returns the length of the protected packet
   * (header, encrypted payload, tag). Throws when `packet` has no room for them.
   */
  seal(packet: Buffer, headerLength: number, payload: Buffer, rolloverCounter: number): number;
}
