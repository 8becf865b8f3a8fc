import { SamlConfigError } from '../errors.js';

/** One request to fetch an import or validation document from a URL. */
export interface FetchDocumentRequest {
  url: string;
  /** Accept plain http and TLS certificates that do not verify, for this request only. */
  allowUnsecure: boolean;
}

/** A fetched document. */
export interface FetchedDocument {
  body: Uint8Array;
  contentType?: string | undefined;
  /** The URL the document finally came from, after redirects. */
  url: string;
}

/**
 * Port: fetches a document from a URL. Implementations bound size and time and refuse non-public
 * addresses; they throw {@link SamlConfigError} `url_not_allowed`, `fetch_failed`, `fetch_timeout`
 * or `download_too_large`.
 */
export interface DocumentFetcher {
  fetch(request: FetchDocumentRequest): Promise<FetchedDocument>;
}

/**
 * In-memory {@link DocumentFetcher} serving fixed documents by exact URL; every other URL fails with
 * `fetch_failed`. For tests and for deployments that must never reach the network.
 */
export function createMemoryDocumentFetcher(
  documents: Readonly<Record<string, string>> = {},
): DocumentFetcher {
  const table = new Map(Object.entries(documents));
  return {
    async fetch(request) {
      const body = table.get(request.url);
      if (body === undefined) {
        throw new SamlConfigError('fetch_failed', `could not fetch ${request.url}: no such document`);
      }
      return { body: new TextEncoder().encode(body), url: request.url };
    },
  };
}
