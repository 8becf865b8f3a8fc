import type pg from 'pg';

/** The channel the outbox's trigger notifies on every insert (schema version 6). */
export const mirrorOutboxChannel = 'chat_mirror_outbox';

/** The `application_name` of the listening connection, to find it in `pg_stat_activity`. */
export const mirrorListenerApplicationName = 'collab-suite mirror listener';

/** Options of {@link createPostgresMirrorListener}. */
export interface PostgresMirrorListenerOptions {
  /** Makes a new client (not connected): LISTEN holds its connection for as long as it listens. */
  newClient: () => pg.Client;
  /** First wait before reconnecting, doubled after each failed attempt. @default 250 */
  retryBaseMs?: number;
  /**
   * Longest wait between reconnection attempts: it is also how long after PostgreSQL's return the
   * listener may still be away (an attempt to an absent server costs a refused connection). @default 1000
   */
  retryMaxMs?: number;
}

/** Listens to the outbox's notices on a connection of its own while anyone subscribes. */
export interface PostgresMirrorListener {
  /** See `MirrorOutbox.onMirrorOperationsQueued`. */
  subscribe(listener: (leaseOwner: string | undefined) => void): Promise<() => Promise<void>>;
  /** Closes the connection and forgets every listener; idempotent. */
  close(): Promise<void>;
}

/**
 * One dedicated connection LISTENing on {@link mirrorOutboxChannel}, opened with the first
 * subscriber and closed with the last. When it drops (PostgreSQL restarted, the backend terminated,
 * the network cut) it reconnects with backoff and then tells every subscriber `undefined`: notices
 * sent meanwhile are lost, so whoever holds the lease should look at the outbox.
 */
export function createPostgresMirrorListener(options: PostgresMirrorListenerOptions): PostgresMirrorListener {
  const retryBaseMs = options.retryBaseMs ?? 250;
  const retryMaxMs = options.retryMaxMs ?? 1000;
  const listeners = new Set<(leaseOwner: string | undefined) => void>();
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  let first: Promise<void> | undefined;

  const tell = (leaseOwner: string | undefined) => {
    for (const listener of listeners) listener(leaseOwner);
  };
  const wanted = () => listeners.size > 0;
  const scheduleRetry = () => {
    if (!wanted() || retryTimer !== undefined) return;
    failures += 1;
    const delay = Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(failures - 1, 20));
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void open();
    }, delay);
    retryTimer.unref();
  };
  const drop = (dropped: pg.Client) => {
    if (client !== dropped) return;
    client = undefined;
    void dropped.end().catch(() => {});
    scheduleRetry();
  };

  const open = async (): Promise<void> => {
    if (!wanted() || client !== undefined) return;
    const opened = options.newClient();
    client = opened;
    // Without an error listener a dropped connection would crash the process.
    opened.on('error', () => drop(opened));
    opened.on('end', () => drop(opened));
    opened.on('notification', (notice) => {
      if (notice.channel === mirrorOutboxChannel) tell(notice.payload || undefined);
    });
    try {
      await opened.connect();
      await opened.query(`LISTEN ${mirrorOutboxChannel}`);
    } catch {
      drop(opened);
      return;
    }
    if (client !== opened) return;
    failures = 0;
    tell(undefined);
  };

  const stop = async () => {
    clearTimeout(retryTimer);
    retryTimer = undefined;
    first = undefined;
    const closing = client;
    client = undefined;
    await closing?.end().catch(() => {});
  };

  return {
    async subscribe(listener) {
      listeners.add(listener);
      first ??= open();
      await first;
      return async () => {
        listeners.delete(listener);
        if (!wanted()) await stop();
      };
    },
    async close() {
      listeners.clear();
      await stop();
    },
  };
}
