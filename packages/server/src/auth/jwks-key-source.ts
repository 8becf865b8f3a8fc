import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { HealthCheck } from '../health/health-check.js';

/** The identity provider's key set cannot be had: the server's dependency failed, not the caller. */
export class JwksUnavailableError extends Error {
  override name = 'JwksUnavailableError';
  constructor(
    message: string,
    /** Seconds until the server tries the key set again. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Options of {@link createJwksKeySource}. */
export interface JwksKeySourceOptions {
  url: string;
  /** Longest one fetch of the key set may take, body included (AUTH_JWKS_TIMEOUT_MS). @default 3000 */
  timeoutMs?: number;
  /**
   * How long a failed fetch is remembered: meanwhile requests needing the key set fail at once
   * (503) instead of each waiting for a dead server. @default 5000
   */
  failureMemoryMs?: number;
  /** Keys are fetched again after this long. @default 600000 (10 minutes, as jose) */
  maxAgeMs?: number;
  /** While the key set cannot be fetched, keys this much past `maxAgeMs` are still used. @default 3600000 */
  maxStaleMs?: number;
  /** A token naming an unknown key fetches the set again at most this often. @default 30000 */
  cooldownMs?: number;
}

/** Keys of a remote JWKS for `jwtVerify`, with a negative cache and a health check. */
export interface JwksKeySource {
  /** @throws JwksUnavailableError when the set cannot be fetched and no usable copy is held */
  getKey: JWTVerifyGetKey;
  /** `jwks` on `/health/`: ready while usable keys are held. */
  health: HealthCheck;
}

type LocalKeys = ReturnType<typeof createLocalJWKSet>;

function describe(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer within the timeout';
  if (error instanceof Error)
    return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
  return String(error);
}

/**
 * The key set at `url`, fetched on first use and every `maxAgeMs`. jose's createRemoteJWKSet
 * retries a failed fetch on the next request (each waiting up to its timeout) and fails every
 * verification once its copy is older than its max age; this source remembers a failure for
 * `failureMemoryMs` and keeps using a stale copy for `maxStaleMs` while the provider is down.
 */
export function createJwksKeySource(options: JwksKeySourceOptions): JwksKeySource {
  const timeoutMs = options.timeoutMs ?? 3000;
  const failureMemoryMs = options.failureMemoryMs ?? 5000;
  const maxAgeMs = options.maxAgeMs ?? 600_000;
  const maxStaleMs = options.maxStaleMs ?? 3_600_000;
  const cooldownMs = options.cooldownMs ?? 30_000;
  let keys: LocalKeys | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let failure: { at: number; message: string } | undefined;
  let pending: Promise<void> | undefined;

  const fetchKeys = async () => {
    const response = await fetch(options.url, {
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json, application/jwk-set+json' },
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`expected 200 from the key set but received ${response.status}`);
    }
    keys = createLocalJWKSet((await response.json()) as JSONWebKeySet);
    fetchedAt = Date.now();
    failure = undefined;
  };
  const refresh = () => {
    pending ??= fetchKeys()
      .catch((error: unknown) => {
        failure = { at: Date.now(), message: describe(error) };
        throw error;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  const recentlyFailed = () => failure !== undefined && Date.now() - failure.at < failureMemoryMs;
  const unavailable = () => {
    const waitMs = failure === undefined ? failureMemoryMs : failure.at + failureMemoryMs - Date.now();
    return new JwksUnavailableError(
      `the identity provider's key set (AUTH_JWKS_URL) is unavailable: ${failure?.message ?? 'not fetched'}`,
      Math.max(1, Math.ceil(waitMs / 1000)),
    );
  };
  const usable = () =>
    keys !== undefined && Date.now() - fetchedAt < maxAgeMs + maxStaleMs ? keys : undefined;
  const currentKeys = async (): Promise<LocalKeys> => {
    if (keys !== undefined && Date.now() - fetchedAt < maxAgeMs) return keys;
    if (!recentlyFailed()) await refresh().catch(() => undefined);
    const held = usable();
    if (held === undefined) throw unavailable();
    return held;
  };

  return {
    async getKey(header, token) {
      const held = await currentKeys();
      try {
        return await held(header, token);
      } catch (error) {
        const mayBeNew = error instanceof errors.JWKSNoMatchingKey && Date.now() - fetchedAt >= cooldownMs;
        if (!mayBeNew) throw error;
        // A token signed by a key published since the last fetch: fetch again, once per cooldown.
        if (recentlyFailed()) throw unavailable();
        await refresh().catch(() => {
          throw unavailable();
        });
        return (usable() ?? held)(header, token);
      }
    },
    health: {
      name: 'jwks',
      required: false,
      async check() {
        if ((keys === undefined || Date.now() - fetchedAt >= maxAgeMs) && !recentlyFailed()) {
          await refresh().catch(() => undefined);
        }
        const ready = usable() !== undefined;
        return {
          live: ready,
          ready,
          details: {
            keys: keys?.jwks()?.keys.length ?? 0,
            ...(Number.isFinite(fetchedAt) ? { fetchedAt: new Date(fetchedAt).toISOString() } : {}),
            ...(failure ? { error: failure.message, failedAt: new Date(failure.at).toISOString() } : {}),
          },
        };
      },
    },
  };
}
