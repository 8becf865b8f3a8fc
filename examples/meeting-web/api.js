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
 */
export async function openEvents(token, onEvent, attempts = 3) {
  // biome-ignore lint/suspicious/noDocumentCookie: one fixed cookie, set before the socket opens; cookieStore is async and not everywhere
  document.cookie = `ZM_AUTH_TOKEN=${encodeURIComponent(token)}; path=/; SameSite=Strict`;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await connectEvents(onEvent);
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
    }
  }
}

function connectEvents(onEvent) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(`${scheme}//${location.host}/events`);
  const waiters = new Set();
  let pings;
  const events = {
    socket,
    queueId: undefined,
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
    close() {
      clearInterval(pings);
      socket.close();
    },
  };
  return new Promise((resolve, reject) => {
    socket.addEventListener('error', () => reject(new Error('could not open /events (is the token valid?)')));
    socket.addEventListener('close', () => clearInterval(pings));
    socket.addEventListener('message', (message) => {
      const event = JSON.parse(message.data);
      if (event.type === 'websocketConnected') {
        events.queueId = event.queueId;
        pings = setInterval(() => socket.send(JSON.stringify({ type: 'ping' })), 25_000);
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
