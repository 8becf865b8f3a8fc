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

/** The session keys of one direction of a DTLS-SRTP transport (RFC 3711 section 4.3). */
export interface SrtpSessionKeys {
  srtpKey: Buffer;
  srtpSalt: Buffer;
  /** AES_CM_128_HMAC_SHA1_80 only. */
  srtpAuthKey?: Buffer;
  srtcpKey: Buffer;
  srtcpSalt: Buffer;
  /** AES_CM_128_HMAC_SHA1_80 only. */
  srtcpAuthKey?: Buffer;
}

/**
 * Unprotects incoming SRTP and SRTCP packets of one session (the remote direction of one DTLS-SRTP
 * transport) with OpenSSL cipher and MAC contexts created once. The tag is checked (in constant
 * time) before anything is decrypted into the output; replay protection is the caller's.
 */
export declare class SrtpOpener {
  /** Throws on an unknown profile or keys of wrong sizes. */
  constructor(profile: typeof AES_CM_128_HMAC_SHA1_80 | typeof AEAD_AES_128_GCM, keys: SrtpSessionKeys);
  readonly profile: number;
  /** Bytes of tag after an SRTP packet's payload: 10 (AES-CM) or 16 (AES-GCM). */
  readonly tagLength: number;
  /**
   * Authenticates the SRTP packet `input` (its RTP header is `headerLength` bytes, SSRC and sequence
   * number read from it) with `rolloverCounter`, and writes the header and the decrypted payload to
   * `output` (which may be `input` itself). Returns their length, or -1 when the packet is not
   * authentic (too short, wrong tag): `output` then holds nothing usable. Throws when `output` is
   * shorter than the header and payload.
   */
  openRtp(input: Buffer, headerLength: number, rolloverCounter: number, output: Buffer): number;
  /**
   * Authenticates the SRTCP packet `input` and writes the compound RTCP packet, decrypted when it
   * was encrypted, to `output` (without the SRTCP index and tag). Returns its length, or -1 when the
   * packet is not authentic.
   */
  openRtcp(input: Buffer, output: Buffer): number;
}

/** `sendDatagram`'s answer when the socket's send buffer is full: send it another way, or drop it. */
export declare const DATAGRAM_WOULD_BLOCK: -1;
/** `sendDatagram`'s answer when the system refused the datagram for another reason. */
export declare const DATAGRAM_FAILED: -2;

/**
 * The socket address of `ip` (an IPv4 or IPv6 literal without a zone) and `port`, as `sendDatagram`
 * takes it, or `null` when `ip` is not such a literal. Undefined on Windows.
 */
export declare const socketAddress: ((ip: string, port: number) => Buffer | null) | undefined;

/**
 * Sends the first `length` bytes of `data` as one datagram on the UDP socket with descriptor
 * `fileDescriptor` (one that Node's `dgram` opened, non-blocking) to `address` (from
 * `socketAddress`), at once, in one system call. Returns the bytes sent, `DATAGRAM_WOULD_BLOCK` when
 * the socket's send buffer is full, or `DATAGRAM_FAILED` when the system refused it otherwise. The
 * caller must make sure the descriptor is still the socket's (not closed and reused). Undefined on
 * Windows.
 */
export declare const sendDatagram:
  | ((fileDescriptor: number, data: Buffer, length: number, address: Buffer) => number)
  | undefined;
