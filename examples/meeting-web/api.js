// The meeting API and the /events socket of the collab-suite server, for the page in this folder.

/** Calls the API as the holder of `token`; resolves with the JSON body (or null), throws with the server's message. */
export function createApi(token) {
  return async function call(method, path, body, headers = {}) {
    const response = await fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const json = text ? JSON.parse(text) : null;
    if (!response.ok) {
      const error = new Error(`${method} ${path}: ${response.status} ${json?.message ?? text}`);
      error.status = response.status;
      throw error;
    }
    return json;
  };
}

/**
 * Opens /events (the browser sends the token as the ZM_AUTH_TOKEN cookie, since a WebSocket cannot
 * carry an Authorization header) and resolves once the server greeted with the queue id. Chromium
 * stores a cookie written just before a WebSocket opens asynchronously, and under load the
 * handshake can leave without it (401): a refused handshake is tried again a few times.
 *
 * A socket that drops, or that stays silent after a ping (a network change can leave it hanging
 * without a close), is opened again with `?queueId=`, so that the server gives back the same
 * session (its meeting participation kept) within its reconnection grace; `onSession` hears
 * `{ state: 'reconnecting' }`, then `{ state: 'resumed' }` or `{ state: 'lost', queueId }` (a new
 * session: join again). The returned object stays the same across reconnections.
 */
export async function openEvents(token, onEvent, { attempts = 3, onSession = () => {} } = {}) {
  // biome-ignore lint/suspicious/noDocumentCookie: one fixed cookie, set before the socket opens; cookieStore is async and not everywhere
  document.cookie = `ZM_AUTH_TOKEN=${encodeURIComponent(token)}; path=/; SameSite=Strict`;
  const events = createEvents(onEvent, onSession);
  for (let attempt = 1; ; attempt += 1) {
    try {
      await events.connect();
      return events;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
    }
  }
}

/** How often the page pings /events, and how long it waits for an answer before taking the socket for dead. */
const pingEveryMs = 25_000;
const pingPatienceMs = 10_000;

function createEvents(onEvent, onSession) {
  const waiters = new Set();
  /** Callbacks waiting for the next message of the current socket (a sign it is alive). */
  const listeners = new Set();
  let socket;
  let pings;
  let closed = false;
  /** A reconnection under way, resolved once a socket is greeted again. */
  let reconnecting;
  /** A liveness check under way, so that several callers share one ping. */
  let checking;
  const events = {
    queueId: undefined,
    get socket() {
      return socket;
    },
    /** Resolves with the next event of `type` matching `where`; register before the request that causes it. */
    next(type, where = () => true, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const waiter = { type, where, resolve };
        waiters.add(waiter);
        setTimeout(() => {
          if (waiters.delete(waiter)) reject(new Error(`no ${type} event within ${timeoutMs} ms`));
        }, timeoutMs);
      });
    },
    /**
     * Makes sure the socket still reaches the server: pings and waits up to `patienceMs` for any
     * message; without one (after a network change a socket can hang without closing) it drops the
     * socket and resolves once a new one took the session over. Call it before a request whose
     * answer comes on /events.
     */
    ensureLive(patienceMs = 1_000) {
      if (closed) return Promise.resolve();
      if (reconnecting !== undefined) return reconnecting;
      checking ??= new Promise((resolve) => {
        const heard = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(heard);
          resolve(abandon());
        }, patienceMs);
        listeners.add(heard);
        try {
          socket?.send(JSON.stringify({ type: 'ping' }));
        } catch {
          // A socket that cannot send is as good as dead: the timer drops it.
        }
      }).finally(() => {
        checking = undefined;
      });
      return checking;
    },
    /** Opens a socket, asking for the current queue id when there is one; resolves once greeted. */
    connect() {
      const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
      const query = events.queueId ? `?queueId=${encodeURIComponent(events.queueId)}` : '';
      const opening = new WebSocket(`${scheme}//${location.host}/events${query}`);
      return new Promise((resolve, reject) => {
        let greeted = false;
        opening.addEventListener('error', () => {
          if (!greeted) reject(new Error('could not open /events (is the token valid?)'));
        });
        opening.addEventListener('close', () => {
          if (!greeted) reject(new Error('/events closed before greeting'));
          else if (!closed && socket === opening) void abandon();
        });
        opening.addEventListener('message', (message) => {
          if (socket === opening) {
            for (const heard of [...listeners]) heard();
            listeners.clear();
          }
          const event = JSON.parse(message.data);
          if (event.type === 'websocketConnected') {
            greeted = true;
            const asked = events.queueId;
            socket = opening;
            events.queueId = event.queueId;
            clearInterval(pings);
            pings = setInterval(() => void events.ensureLive(pingPatienceMs), pingEveryMs);
            if (asked !== undefined)
              onSession(event.resumed ? { state: 'resumed' } : { state: 'lost', queueId: event.queueId });
            resolve(events);
            return;
          }
          if (event.type === 'pong') return;
          for (const waiter of [...waiters]) {
            if (waiter.type === event.type && waiter.where(event)) {
              waiters.delete(waiter);
              waiter.resolve(event);
            }
          }
          onEvent(event);
        });
      });
    },
    close() {
      closed = true;
      clearInterval(pings);
      socket?.close();
    },
  };
  /**
   * Lets the current socket go (closed or silent) and opens another; resolves once it is greeted.
   * A silent socket is left open: if it was only slow, what it still delivers is not lost, and the
   * server closes it when the new socket takes the session over.
   */
  function abandon() {
    socket = undefined;
    clearInterval(pings);
    reconnecting ??= reconnect().finally(() => {
      reconnecting = undefined;
    });
    return reconnecting;
  }
  /** Opens /events again, at once and then every second or few, until it works or the page closes it. */
  async function reconnect() {
    onSession({ state: 'reconnecting' });
    for (let attempt = 1; !closed; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000 * (attempt - 1), 5_000)));
      if (closed) return;
      try {
        await events.connect();
        return;
      } catch {
        // Try again: the server or the network may be back in a moment.
      }
    }
  }
  return events;
}

/** Resolves once `peer` has gathered its candidates: the server takes complete descriptions (no trickle ICE). */
export function gathered(peer) {
  if (peer.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (peer.iceGatheringState !== 'complete') return;
      peer.removeEventListener('icegatheringstatechange', done);
      resolve();
    };
    peer.addEventListener('icegatheringstatechange', done);
    setTimeout(resolve, 5_000);
  });
}
