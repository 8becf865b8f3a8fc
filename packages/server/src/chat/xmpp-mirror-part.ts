import type { ChatStore } from '@collab-suite/chat-domain';
import { createXmppMirror, type XmppMirror } from '@collab-suite/chat-domain/xmpp';
import type { Logger } from 'pino';
import type { XmppConfig } from '../config.js';
import type { HealthCheck } from '../health/health-check.js';

/** The XMPP mirror of a server and its health check. */
export interface XmppMirrorPart {
  mirror: XmppMirror;
  health: HealthCheck;
}

/**
 * Creates the mirror from the configuration; `start()` is left to the caller. `drainerName` starts
 * the name its lease is held under (the server passes its node id).
 */
export function createXmppMirrorFromConfig(
  xmpp: XmppConfig,
  store: ChatStore,
  logger: Logger,
  options: { retryMaxMs?: number; drainerName?: string } = {},
): XmppMirror {
  const { credentials } = xmpp;
  const basic =
    credentials && `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
  return createXmppMirror({
    store,
    apiUrl: xmpp.apiUrl,
    domain: xmpp.domain,
    mucDomain: xmpp.mucDomain,
    ...(basic ? { authorization: async () => basic } : {}),
    leaseMs: xmpp.leaseMs,
    // Under half the lease, as the mirror requires: 10 s unless the lease is shorter than 40 s.
    commandTimeoutMs: Math.min(10_000, Math.floor(xmpp.leaseMs / 4)),
    pollIntervalMs: xmpp.pollIntervalMs,
    ...(options.retryMaxMs ? { retryMaxMs: options.retryMaxMs } : {}),
    ...(options.drainerName ? { drainerName: options.drainerName } : {}),
    onError: (error, during) =>
      logger.warn({ reason: error instanceof Error ? error.message : String(error), during }, 'XMPP mirror'),
    onOptionsRepaired: (roomId, options) =>
      logger.warn({ roomId, options }, 'XMPP room options had been changed in ejabberd: set back'),
  });
}

/**
 * Starts the mirror of a running server (the store queues room changes from then on) and reports
 * ejabberd and the outbox in `/health/`.
 */
export async function startXmppMirrorPart(
  xmpp: XmppConfig,
  store: ChatStore,
  logger: Logger,
  drainerName?: string,
): Promise<XmppMirrorPart> {
  const mirror = createXmppMirrorFromConfig(xmpp, store, logger, drainerName ? { drainerName } : {});
  await mirror.start();
  return {
    mirror,
    health: {
      name: 'chat-xmpp',
      required: true,
      unavailableStatus: 503,
      unavailableMessage: 'the XMPP server (ejabberd) does not answer',
      async check() {
        const outbox = await store.countMirrorOperations().catch(() => undefined);
        try {
          await mirror.check();
          return {
            live: true,
            ready: true,
            details: { domain: xmpp.domain, mucDomain: xmpp.mucDomain, outbox },
          };
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          return { live: true, ready: false, details: { domain: xmpp.domain, outbox, error: reason } };
        }
      },
    },
  };
}
