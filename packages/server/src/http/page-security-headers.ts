import type { Request, RequestHandler } from 'express';

/** Options of {@link pageSecurityHeaders}: what a page loads besides its own origin's files. */
export interface PageSecurityOptions {
  /** Origins the page's scripts connect to besides its own (e.g. the XMPP WebSocket). @default [] */
  connectSources?: readonly string[];
  /** Style sources besides `'self'` (swagger-ui sets inline styles). @default [] */
  styleSources?: readonly string[];
  /** Image sources besides `'self'` (swagger-ui draws `data:` SVG icons). @default [] */
  imageSources?: readonly string[];
}

/** The WebSocket origin of the request's own host (`/events`), which CSP's `'self'` may not cover. */
function ownSocketOrigin(request: Request): string {
  return `${request.protocol === 'https' ? 'wss' : 'ws'}://${request.host}`;
}

/**
 * Middleware for HTML pages and their assets: a Content-Security-Policy allowing only what the page
 * loads (its own scripts, styles and images, fetches and WebSockets to this server plus
 * `connectSources`), never framed (`frame-ancestors 'none'`, X-Frame-Options for old browsers),
 * `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.
 */
export function pageSecurityHeaders(options: PageSecurityOptions = {}): RequestHandler {
  const policyFor = (request: Request) =>
    [
      "default-src 'none'",
      "script-src 'self'",
      `style-src ${["'self'", ...(options.styleSources ?? [])].join(' ')}`,
      `img-src ${["'self'", ...(options.imageSources ?? [])].join(' ')}`,
      `connect-src ${["'self'", ownSocketOrigin(request), ...(options.connectSources ?? [])].join(' ')}`,
      "media-src 'self' blob: mediastream:",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; ');
  return (request, response, next) => {
    response.setHeader('Content-Security-Policy', policyFor(request));
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('X-Frame-Options', 'DENY');
    response.setHeader('Referrer-Policy', 'no-referrer');
    response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    next();
  };
}
