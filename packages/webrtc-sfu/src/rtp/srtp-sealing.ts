import { createRequire } from 'node:module';
import type { SrtpSealer } from '@collab-suite/srtp-native';

/** The parts of werift 0.24's SRTP context (one direction of a DTLS-SRTP transport) a sealer needs. */
export interface SrtpSessionKeys {
  profile: number;
  srtpSessionKey: Buffer;
  srtpSessionSalt: Buffer;
  srtpSessionAuthTag: Buffer;
}

type NativeModule = typeof import('@collab-suite/srtp-native');

let nativeModule: NativeModule | null | undefined;
const sealers = new WeakMap<SrtpSessionKeys, SrtpSealer | null>();

/**
 * The optional `@collab-suite/srtp-native` addon, or `null` when it is not installed or not built
 * (no compiler where the package was installed): werift's own encryption is used then.
 */
function loadNative(): NativeModule | null {
  if (nativeModule === undefined) {
    try {
      nativeModule = createRequire(import.meta.url)('@collab-suite/srtp-native') as NativeModule;
    } catch {
      nativeModule = null;
    }
  }
  return nativeModule;
}

/** Whether the native SRTP addon loaded in this process. */
export function nativeSrtpAvailable(): boolean {
  return loadNative() !== null;
}

/**
 * The native sealer for werift's local SRTP context `keys` (made once per context), or `null` when
 * the addon is missing or refuses the context (a profile it does not know, keys of other sizes):
 * werift's cipher then encrypts for that context.
 */
export function sealerFor(keys: SrtpSessionKeys): SrtpSealer | null {
  const known = sealers.get(keys);
  if (known !== undefined) return known;
  const native = loadNative();
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
