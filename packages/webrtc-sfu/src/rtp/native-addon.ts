import { createRequire } from 'node:module';

/** The optional `@collab-suite/srtp-native` addon's module. */
export type NativeAddon = typeof import('@collab-suite/srtp-native');

let nativeAddon: NativeAddon | null | undefined;

/**
 * The optional `@collab-suite/srtp-native` addon, or `null` when it is not installed or not built
 * (no compiler where the package was installed): werift's own encryption and Node's `dgram` send
 * are used then.
 */
export function loadNativeAddon(): NativeAddon | null {
  if (nativeAddon === undefined) {
    try {
      nativeAddon = createRequire(import.meta.url)('@collab-suite/srtp-native') as NativeAddon;
    } catch {
      nativeAddon = null;
    }
  }
  return nativeAddon;
}
