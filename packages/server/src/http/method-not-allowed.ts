import type { RequestHandler } from 'express';
import { HttpError } from './http-error.js';

const DOCUMENTED_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** A path template of the OpenAPI document (`/rooms/{roomId}`) as a regular expression. */
function templatePattern(template: string): RegExp {
  const parts = template
    .replace(/\/+$/, '')
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // Express routes are not strict: a trailing slash is optional.
  return new RegExp(`^${parts.join('[^/]+')}/?$`);
}

/**
 * For requests no route took: when the path is one of the document's paths, answers 405 with an
 * `Allow` header naming the methods it has (HEAD wherever GET is, as Express answers it), instead
 * of a 404 that would say the path does not exist. Other requests go on (to the 404).
 */
export function methodNotAllowed(
  paths: Record<string, Record<string, unknown>>,
  /** Where the paths are mounted (a feature's base path); they are matched against the rest. */
  basePath = '/',
): RequestHandler {
  const base = basePath.replace(/\/+$/, '');
  const known = Object.entries(paths).map(([template, item]) => {
    const methods = Object.keys(item).filter((method) => DOCUMENTED_METHODS.includes(method));
    if (methods.includes('get') && !methods.includes('head')) methods.push('head');
    const allow = DOCUMENTED_METHODS.filter((method) => methods.includes(method))
      .map((method) => method.toUpperCase())
      .join(', ');
    return { pattern: templatePattern(template), methods, allow };
  });
  return (request, _response, next) => {
    // The whole path, wherever this handler is mounted, less the base of `paths`.
    const whole = `${request.baseUrl}${request.path}`;
    if (!whole.startsWith(base)) {
      next();
      return;
    }
    const path = whole.slice(base.length) || '/';
    const match = known.find(({ pattern }) => pattern.test(path));
    if (match === undefined || match.methods.includes(request.method.toLowerCase())) {
      next();
      return;
    }
    next(
      new HttpError(405, `expected one of ${match.allow} for ${whole} but received ${request.method}`, {
        Allow: match.allow,
      }),
    );
  };
}
