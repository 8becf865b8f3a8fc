import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** Options of {@link createOriginPolicy}. */
export interface OriginPolicyOptions {
  /**
   * PUBLIC_URL: its origin is this server's. Unset, the server's origin is the one the request
   * itself was sent to: its scheme and `Host` (`X-Forwarded-Proto`/`X-Forwarded-Host` with `trustProxy`).
   */
  publicUrl?: string | undefined;
  /** ALLOWED_ORIGINS: other origins whose pages may use the cookie (e.g. a web client elsewhere). @default [] */
  allowedOrigins?: readonly string[];
  /** Whether a proxy in front names the scheme and host (TRUST_PROXY is not `false`). @default false */
  trustProxy?: boolean;
}

/** Decides whether a browser request comes from this server's own pages or an allowed origin. */
export interface OriginPolicy {
  /**
   * Why the request is cross-origin, or undefined when it may go on: `Sec-Fetch-Site: same-origin`
   * or `none`, or an `Origin` that is this server's or allowed. A request with neither header is not
   * from a browser (every browser sends `Origin` on cross-origin writes and WebSocket handshakes).
   */
  refusalOf(request: IncomingMessage): string | undefined;
}

const TRUSTED_FETCH_SITES = new Set(['same-origin', 'none']);

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** The first value of a comma-separated forwarded header. */
function firstForwarded(request: IncomingMessage, name: string): string | undefined {
  return headerOf(request, name)?.split(',')[0]?.trim() || undefined;
}

/** An origin as browsers serialise it (`scheme://host[:port]`, default port left out), or undefined. */
export function normalizeOrigin(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.origin;
}

/** The origin the request was sent to: its scheme and Host, as a proxy names them when trusted. */
function ownOriginOf(request: IncomingMessage, trustProxy: boolean): string | undefined {
  const encrypted = (request.socket as TLSSocket | undefined)?.encrypted === true;
  const scheme =
    (trustProxy && firstForwarded(request, 'x-forwarded-proto')) || (encrypted ? 'https' : 'http');
  const host = (trustProxy && firstForwarded(request, 'x-forwarded-host')) || headerOf(request, 'host');
  return host === undefined ? undefined : normalizeOrigin(`${scheme}://${host}`);
}

/** Creates the same-origin rule of cookie-authenticated requests. */
export function createOriginPolicy(options: OriginPolicyOptions = {}): OriginPolicy {
  const publicOrigin = options.publicUrl === undefined ? undefined : normalizeOrigin(options.publicUrl);
  const allowed = new Set((options.allowedOrigins ?? []).flatMap((origin) => normalizeOrigin(origin) ?? []));
  if (publicOrigin !== undefined) allowed.add(publicOrigin);
  const trustProxy = options.trustProxy ?? false;
  const expectedFor = (request: IncomingMessage) => {
    const own = publicOrigin === undefined ? ownOriginOf(request, trustProxy) : undefined;
    return own === undefined ? [...allowed] : [own, ...allowed];
  };
  return {
    refusalOf(request) {
      const site = headerOf(request, 'sec-fetch-site')?.toLowerCase();
      if (site !== undefined && TRUSTED_FETCH_SITES.has(site)) return undefined;
      const origin = headerOf(request, 'origin');
      if (origin === undefined && site === undefined) return undefined;
      const expected = expectedFor(request);
      if (origin !== undefined && expected.includes(origin.toLowerCase())) return undefined;
      const came = origin === undefined ? `no Origin and Sec-Fetch-Site ${site}` : `Origin ${origin}`;
      return (
        `cross-origin request refused: a request authenticated by the ZM_AUTH_TOKEN cookie must come from ` +
        `${expected.join(' or ') || 'this server'} but came with ${came}; ` +
        'send the token in Authorization: Bearer, or list the origin in ALLOWED_ORIGINS'
      );
    },
  };
}
