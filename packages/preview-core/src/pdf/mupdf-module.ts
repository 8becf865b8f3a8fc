import { explainMissingPeer } from '../options/optional-peer.js';

/** The mupdf module's type (ESM-only WASM, loaded on first use). */
export type Mupdf = typeof import('mupdf');

let loading: Promise<Mupdf> | undefined;
const recentMessages: string[] = [];

/**
 * Imports mupdf once per process (about 70 ms and 14 MB of WASM), the first time a PDF is opened, and
 * routes its warnings into a short in-memory list instead of stderr.
 * @throws {PreviewError} `MISSING_DEPENDENCY` when mupdf is not installed.
 */
export function loadMupdf(): Promise<Mupdf> {
  loading ??= import('mupdf').then(
    (mupdf) => {
      const remember = (message: string) => {
        recentMessages.push(message);
        if (recentMessages.length > 20) recentMessages.shift();
      };
      mupdf.setLog({ error: remember, warning: remember });
      return mupdf;
    },
    (error: unknown) => {
      loading = undefined;
      return explainMissingPeer('mupdf', error);
    },
  );
  return loading;
}

/** Takes (and clears) mupdf's recent warnings and errors, to explain a failure. */
export function takeMupdfMessages(): string[] {
  return recentMessages.splice(0, recentMessages.length);
}
