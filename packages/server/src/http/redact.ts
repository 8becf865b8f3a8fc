/** What stands in for a secret in logs and messages. */
export const REDACTED = '[redacted]';

/**
 * Query parameters and variables whose values are secrets by their name alone; `queueId` too: it
 * names an `/events` session, which `/events?queueId=` resumes with the events kept for it. A key
 * frame is no key (`MEETING_KEYFRAME_REQUEST_INTERVAL_MS` is a number of milliseconds).
 */
const SECRET_NAME = /token|key(?!frame)|secret|signature|password|passwd|credential|queue[_-]?id/i;

/** `scheme://user:password@` (the password part is everything up to the last `@` of the authority). */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:]*):([^\s/?#]*)@/gi;

/** True when a query parameter or variable named `name` holds a secret by convention. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * `text` with the password of every `scheme://user:password@host` in it replaced by `[redacted]`
 * (the user and host are kept: they say where, not how to get in).
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(
    URL_CREDENTIALS,
    (_match, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`,
  );
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return value;
  }
}

/**
 * A request target (`/path?query`) as a log may show it: values of parameters named like secrets
 * (`token`, `key`, `secret`, `signature`, `password`, `queueId`...) become `[redacted]`, and a URL with
 * `user:password@` in any other value (percent-encoded or not) loses its password.
 */
export function redactRequestTarget(target: string): string {
  const queryStart = target.indexOf('?');
  if (queryStart < 0) return redactUrlCredentials(target);
  const path = redactUrlCredentials(target.slice(0, queryStart));
  const query = target
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      const name = pair.slice(0, equals);
      if (isSecretName(decoded(name))) return `${name}=${REDACTED}`;
      const value = pair.slice(equals + 1);
      const plain = decoded(value);
      const redacted = redactUrlCredentials(plain);
      return redacted === plain ? pair : `${name}=${encodeURIComponent(redacted)}`;
    })
    .join('&');
  return `${path}?${query}`;
}

/**
 * A configuration value as an error message may show it: a variable named like a secret shows only
 * its length, anything else with the passwords of its URLs and secret query values redacted.
 */
export function redactSettingValue(name: string, value: string | undefined): string {
  if (value === undefined) return 'nothing';
  if (isSecretName(name)) return `a value of ${Buffer.byteLength(value)} bytes (${REDACTED})`;
  return JSON.stringify(redactRequestTarget(value));
}

/** The target of `request` (its `originalUrl`, else `url`) as request logs show it: see {@link redactRequestTarget}. */
export function loggedRequestTarget(request: { originalUrl?: string | undefined; url: string }): string {
  return redactRequestTarget(request.originalUrl ?? request.url);
}
