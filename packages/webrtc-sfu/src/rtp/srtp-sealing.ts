import type { SrtpSealer } from '@collab-suite/srtp-native';
import { loadNativeAddon } from './native-addon.js';

/** The parts of werift 0.24's SRTP context (one direction of a DTLS-SRTP transport) a sealer needs. */
export interface SrtpSessionKeys {
  profile: number;
  srtpSessionKey: Buffer;
  srtpSessionSalt: Buffer;
  srtpSessionAuthTag: Buffer;
}

const sealers = new WeakMap<SrtpSessionKeys, SrtpSealer | null>();

/** Whether the native SRTP addon loaded in this process. */
export function nativeSrtpAvailable(): boolean {
  return loadNativeAddon() !== null;
}

/**
 * The native sealer for werift's local SRTP context `keys` (made once per context), or `null` when
 * the addon is missing or refuses the context (a profile it does not know, keys of other sizes):
 * werift's cipher then encrypts for that context.
 */
export function sealerFor(keys: SrtpSessionKeys): SrtpSealer | null {
  const known = sealers.get(keys);
  if (known !== undefined) return known;
  const native = loadNativeAddon();
  let sealer: SrtpSealer | null = null;
  if (
    native !== null &&
    (keys.profile === native.AEAD_AES_128_GCM || keys.profile === native.AES_CM_128_HMAC_SHA1_80)
  ) {
    try {
      sealer = new native.SrtpSealer(
        keys.profile,
        keys.srtpSessionKey,
        keys.srtpSessionSalt,
        keys.srtpSessionAuthTag,
      );
    } catch {
      sealer = null;
    }
  }
  sealers.set(keys, sealer);
  return sealer;
}
