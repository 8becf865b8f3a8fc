'use strict';
// Loads the addon built by `node-gyp rebuild` (this package's install script). Requiring this
// module throws when the addon is not built; @collab-suite/webrtc-sfu then keeps werift's own
// SRTP encryption.
const addon = require('./build/Release/srtp_native.node');

/** RFC 3711 AES_CM_128_HMAC_SHA1_80, as werift and DTLS-SRTP number it. */
const AES_CM_128_HMAC_SHA1_80 = 1;
/** RFC 7714 AEAD_AES_128_GCM. */
const AEAD_AES_128_GCM = 7;

class SrtpSealer {
  #handle;

  constructor(profile, sessionKey, sessionSalt, sessionAuthKey) {
    this.profile = profile;
    this.tagLength = profile === AEAD_AES_128_GCM ? 16 : 10;
    this.#handle = addon.createSealer(profile, sessionKey, sessionSalt, sessionAuthKey);
  }

  seal(packet, headerLength, payload, rolloverCounter) {
    return addon.seal(this.#handle, packet, headerLength, payload, rolloverCounter);
  }
}

/**
 * Unprotects incoming SRTP and SRTCP packets of one session (the remote direction of one DTLS-SRTP
 * transport) with OpenSSL contexts created once.
 */
class SrtpOpener {
  #rtp;
  #rtcp;

  constructor(profile, keys) {
    this.profile = profile;
    this.tagLength = profile === AEAD_AES_128_GCM ? 16 : 10;
    this.#rtp = addon.createOpener(profile, keys.srtpKey, keys.srtpSalt, keys.srtpAuthKey);
    this.#rtcp = addon.createOpener(profile, keys.srtcpKey, keys.srtcpSalt, keys.srtcpAuthKey);
  }

  openRtp(input, headerLength, rolloverCounter, output) {
    return addon.openRtp(this.#rtp, input, headerLength, rolloverCounter, output);
  }

  openRtcp(input, output) {
    return addon.openRtcp(this.#rtcp, input, output);
  }
}

/** `sendDatagram`'s answer when the socket's send buffer is full: send it another way, or drop it. */
const DATAGRAM_WOULD_BLOCK = -1;
/** `sendDatagram`'s answer when the system refused the datagram for another reason. */
const DATAGRAM_FAILED = -2;

module.exports = {
  SrtpSealer,
  SrtpOpener,
  AES_CM_128_HMAC_SHA1_80,
  AEAD_AES_128_GCM,
  // Not built on Windows: undefined there.
  socketAddress: addon.socketAddress,
  sendDatagram: addon.sendDatagram,
  DATAGRAM_WOULD_BLOCK,
  DATAGRAM_FAILED,
};
