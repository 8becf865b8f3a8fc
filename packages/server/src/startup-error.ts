import { REDACTED, redactRequestTarget, redactUrlCredentials } from './http/redact.js';

/**
 * A dependency the configuration names could not be reached at start-up. Its message names the
 * variable, the engine and where, so `main` prints it alone, without a stack.
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** Where a connection URL points, without its credentials: `host:port/path`; a file path as it is. */
export function locationOf(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return redactRequestTarget(url);
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'an unreadable URL';
  }
}

/** The first system error code (`ECONNREFUSED`, `ENOTFOUND`...) along an error's causes. */
function systemCodeIn(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    current = current.cause;
  }
  return undefined;
}

/** `text` with every URL password, and the password of `url` wherever it appears, redacted. */
export function withoutCredentialsOf(url: string, text: string): string {
  let redacted = redactUrlCredentials(text);
  try {
    const password = URL.canParse(url) ? decodeURIComponent(new URL(url).password) : '';
    if (password.length > 0) redacted = redacted.replaceAll(password, REDACTED);
  } catch {
    // An undecodable password is left to the URL redaction above.
  }
  return redacted;
}

/** Runs `open`; a failure becomes a {@link StartupError} naming `variable` and `engine`. */
export async function openNamed<T>(
  variable: string,
  engine: string,
  url: string,
  open: () => Promise<T>,
): Promise<T> {
  try {
    return await open();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = systemCodeIn(error) ?? withoutCredentialsOf(url, message);
    throw new StartupError(`${variable}: could not connect to ${engine} at ${locationOf(url)} (${reason})`, {
      cause: error,
    });
  }
}
