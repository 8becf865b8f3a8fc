import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request as undiciRequest } from 'undici';
import { z } from 'zod';
import { SamlConfigError } from '../errors.js';
import { parseOptions } from '../options.js';
import { type AddressPolicy, createAddressPolicy } from './address-policy.js';
import type { DocumentFetcher, FetchDocumentRequest, FetchedDocument } from './document-fetcher.js';

/** Options of {@link createHttpDocumentFetcher}. */
export const httpDocumentFetcherOptionsSchema = z.strictObject({
  /**
   * Whole-fetch time limit in milliseconds, redirects included: an IdP that cannot serve its metadata
   * in 10 s is down, and the admin request should not hang on it.
   * @default 10000
   */
  timeoutMs: z.number().int().positive().default(10_000),
  /**
   * Largest body accepted, in bytes: a single IdP's metadata is a few KB, so 1 MiB bounds memory
   * without refusing real documents (large federation aggregates are not a per-domain import).
   * @default 1048576
   */
  maxBytes: z.number().int().positive().default(1_048_576),
  /**
   * Redirects followed, each re-checked like the first URL: real metadata URLs redirect once or twice.
   * @default 5
   */
  maxRedirects: z.number().int().min(0).default(5),
  /**
   * Allow loopback, private and link-local addresses. Off: the server must not become a proxy into
   * its own network (SSRF).
   * @default false
   */
  allowPrivateAddresses: z.boolean().default(false),
  /**
   * Non-public addresses allowed all the same (IP literals or CIDR, such as `127.0.0.1/32` for a
   * test server or `10.1.2.3` for an on-premises IdP).
   * @default []
   */
  allowedAddresses: z.array(z.string()).default([]),
});

/** Input of {@link createHttpDocumentFetcher}. */
export type HttpDocumentFetcherOptions = z.input<typeof httpDocumentFetcherOptionsSchema>;

type ResolvedOptions = z.output<typeof httpDocumentFetcherOptionsSchema>;

const ADDRESS_REFUSED = 'ERR_SAML_ADDRESS_REFUSED';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function refused(url: URL, why: string): SamlConfigError {
  return new SamlConfigError('url_not_allowed', `refusing to fetch ${url.origin}: ${why}`, {
    details: { url: url.href },
  });
}

/** Checks scheme, credentials and IP-literal hosts before any connection is made. */
function checkUrl(url: URL, allowUnsecure: boolean, policy: AddressPolicy): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SamlConfigError(
      'url_not_allowed',
      `expected an https URL but received the ${url.protocol} scheme`,
      {
        details: { url: url.href },
      },
    );
  }
  if (url.protocol === 'http:' && !allowUnsecure) throw refused(url, 'plain http needs allowUnsecure=true');
  if (url.username !== '' || url.password !== '')
    throw refused(url, 'URLs with credentials are not accepted');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !policy.allows(host)) throw refused(url, `${host} is not a public address`);
}

function familyNumber(family: LookupOptions['family']): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/** A DNS lookup for the socket itself: the address checked is the address connected to. */
function guardedLookup(policy: AddressPolicy) {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { family: familyNumber(options.family), all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const bad = addresses.find((entry) => !policy.allows(entry.address));
      if (bad !== undefined) {
        const refusal = Object.assign(
          new Error(`${hostname} resolves to ${bad.address}, which is not a public address`),
          {
            code: ADDRESS_REFUSED,
          },
        );
        return callback(refusal, []);
      }
      const first = addresses[0] as LookupAddress;
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

function findCode(error: unknown, depth = 0): { code?: string; message: string } {
  const value = error as { code?: string; message?: string; cause?: unknown } | undefined;
  if (value === undefined || value === null || depth > 5) return { message: String(error) };
  if (value.code === ADDRESS_REFUSED || /^ERR_TLS|CERT|SELF_SIGNED/.test(value.code ?? '')) {
    return { code: value.code, message: value.message ?? '' };
  }
  if (value.cause !== undefined) {
    const inner = findCode(value.cause, depth + 1);
    if (inner.code !== undefined) return inner;
  }
  return value.code === undefined
    ? { message: value.message ?? String(error) }
    : { code: value.code, message: value.message ?? '' };
}

function translateError(error: unknown, url: URL, timedOut: boolean, timeoutMs: number): SamlConfigError {
  if (error instanceof SamlConfigError) return error;
  if (timedOut) {
    return new SamlConfigError('fetch_timeout', `fetching ${url.origin} took longer than ${timeoutMs} ms`, {
      cause: error,
    });
  }
  const { code, message } = findCode(error);
  if (code === ADDRESS_REFUSED)
    return new SamlConfigError('url_not_allowed', `refusing to fetch ${url.origin}: ${message}`, {
      cause: error,
    });
  if (code !== undefined && /CERT|SELF_SIGNED|ERR_TLS/.test(code)) {
    return new SamlConfigError(
      'fetch_failed',
      `the TLS certificate of ${url.host} does not verify (${code}); pass allowUnsecure=true to accept it for this request`,
      { cause: error },
    );
  }
  return new SamlConfigError('fetch_failed', `could not fetch ${url.origin}: ${code ?? message}`, {
    cause: error,
  });
}

/**
 * Creates the {@link DocumentFetcher} used for `url` imports: https only (http with `allowUnsecure`),
 * every hop's address checked against the SSRF policy at connect time (so DNS rebinding cannot
 * slip through), redirects followed by hand and re-checked, body size and total time bounded.
 * `allowUnsecure` builds a dedicated connection pool for that one request; nothing global changes.
 * @throws SamlConfigError `invalid_options`
 */
export function createHttpDocumentFetcher(options: HttpDocumentFetcherOptions = {}): DocumentFetcher {
  const resolved = parseOptions(httpDocumentFetcherOptionsSchema, options, 'createHttpDocumentFetcher');
  const policy = createAddressPolicy(resolved);
  return {
    fetch: (request) => fetchDocument(request, resolved, policy),
  };
}

async function fetchDocument(
  request: FetchDocumentRequest,
  options: ResolvedOptions,
  policy: AddressPolicy,
): Promise<FetchedDocument> {
  let url: URL;
  let requested: string;
  try {
    url = new URL(request.url);
    // Where the request went, never its user and password, for messages.
    requested = `${url.origin}${url.pathname}`;
  } catch {
    throw new SamlConfigError(
      'url_not_allowed',
      `expected an absolute https URL but received ${JSON.stringify(request.url.slice(0, 200).replace(/\/\/[^/?#]*@/, '//'))}`,
    );
  }
  const agent = new Agent({
    connect: {
      rejectUnauthorized: !request.allowUnsecure,
      lookup: guardedLookup(policy),
      timeout: options.timeoutMs,
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  try {
    for (let hop = 0; ; hop += 1) {
      checkUrl(url, request.allowUnsecure, policy);
      const next = await fetchHop(url, agent, controller.signal, options);
      if (next.kind === 'document') return next.document;
      if (hop >= options.maxRedirects) {
        throw new SamlConfigError(
          'fetch_failed',
          `could not fetch ${requested}: more than ${options.maxRedirects} redirects`,
        );
      }
      url = next.location;
    }
  } catch (error) {
    throw translateError(error, url, timedOut, options.timeoutMs);
  } finally {
    clearTimeout(timer);
    agent.destroy().catch(() => undefined);
  }
}

type HopResult = { kind: 'document'; document: FetchedDocument } | { kind: 'redirect'; location: URL };

async function fetchHop(
  url: URL,
  agent: Agent,
  signal: AbortSignal,
  options: ResolvedOptions,
): Promise<HopResult> {
  const response = await undiciRequest(url, {
    method: 'GET',
    dispatcher: agent,
    signal,
    headers: {
      accept: 'application/samlmetadata+xml, application/xml, text/xml, application/json;q=0.9, */*;q=0.5',
      'user-agent': 'collab-suite-saml-config',
    },
  });
  const header = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  if (REDIRECT_STATUSES.has(response.statusCode)) {
    discard(response.body);
    const location = header('location');
    if (location === undefined)
      throw new SamlConfigError(
        'fetch_failed',
        `${url.origin} answered ${response.statusCode} without a Location`,
      );
    return { kind: 'redirect', location: new URL(location, url) };
  }
  if (response.statusCode < 200 || response.statusCode >= 300) {
    discard(response.body);
    throw new SamlConfigError(
      'fetch_failed',
      `could not fetch ${url.origin}${url.pathname}: the server answered ${response.statusCode}`,
    );
  }
  const declared = Number(header('content-length'));
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    discard(response.body);
    throw tooLarge(url, options.maxBytes, `it declares ${declared} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).byteLength;
    if (size > options.maxBytes) {
      discard(response.body);
      throw tooLarge(url, options.maxBytes, `more than ${options.maxBytes} bytes arrived`);
    }
    chunks.push(chunk as Buffer);
  }
  return {
    kind: 'document',
    document: { body: Buffer.concat(chunks), contentType: header('content-type'), url: url.href },
  };
}

/** Drops a body we will not read; undici reports the abort as an error event, which is expected here. */
function discard(body: { on(event: 'error', listener: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

function tooLarge(url: URL, limit: number, what: string): SamlConfigError {
  return new SamlConfigError(
    'download_too_large',
    `expected a document of at most ${limit} bytes at ${url.origin}${url.pathname} but ${what}`,
    {
      details: { limit },
    },
  );
}
