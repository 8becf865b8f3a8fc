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
 * A socket that drops is opened again with `?queueId=`, so that the server gives back the same
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

function createEvents(onEvent, onSession) {
  const waiters = new Set();
  let socket;
  let pings;
  let closed = false;
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
          clearInterval(pings);
          if (!greeted) reject(new Error('/events closed before greeting'));
          else if (!closed && socket === opening) void reconnect();
        });
        opening.addEventListener('message', (message) => {
          const event = JSON.parse(message.data);
          if (event.type === 'websocketConnected') {
            greeted = true;
            const asked = events.queueId;
            socket = opening;
            events.queueId = event.queueId;
            clearInterval(pings);
            pings = setInterval(() => opening.send(JSON.stringify({ type: 'ping' })), 25_000);
            if (asked !== undefined)
              onSession(event.resumed ? { state: 'resumed' } : { state: 'lost', queueId: event.queueId });
            resolve(events);
            return;
          }
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
  /** Opens /events again every second or so until it works or the page closes it. */
  async function reconnect() {
    onSession({ state: 'reconnecting' });
    for (let attempt = 1; !closed; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000 * attempt, 5_000)));
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
