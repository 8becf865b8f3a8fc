import type { RequestHandler, Router } from 'express';

const regExpSpecials = /[.*+?^${}()|[\]\\]/g;

/**
 * `router`, reached only by requests whose path (relative to where this is mounted) is one of
 * `prefixes` or lies below one, compared case-insensitively as Express matches routes. Other
 * requests go on to the next handler after a single regular-expression test instead of walking
 * every layer of `router` and of the routers inside it.
 */
export function routerUnder(prefixes: readonly string[], router: Router): RequestHandler {
  const alternatives = prefixes.map((prefix) => prefix.replace(/\/+$/, '').replace(regExpSpecials, '\\$&'));
  const inScope = new RegExp(`^(?:${alternatives.join('|')})(?:/|$)`, 'i');
  return (request, response, next) => {
    if (inScope.test(request.path)) router(request, response, next);
    else next();
  };
}
