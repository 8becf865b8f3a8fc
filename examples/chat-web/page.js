// The chat page: rooms from the API, messages and history over XMPP.
import { connectXmpp, describeMessage } from './xmpp.js';

const elements = {
  loginForm: document.querySelector('#login-form'),
  token: document.querySelector('#token'),
  status: document.querySelector('#status'),
  rooms: document.querySelector('#rooms'),
  conversation: document.querySelector('#conversation'),
  title: document.querySelector('#room-title'),
  older: document.querySelector('#older'),
  messages: document.querySelector('#messages'),
  sendForm: document.querySelector('#send-form'),
  text: document.querySelector('#text'),
};

const state = {
  session: undefined,
  config: undefined,
  roomJid: undefined,
  oldestArchiveId: undefined,
  shown: new Set(),
};

const setStatus = (text) => {
  elements.status.textContent = text;
};

async function api(token, path) {
  const response = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

/** One message as a list item; system messages and forwards are marked as such. */
function messageItem(message) {
  const item = document.createElement('li');
  item.dataset.id = message.id ?? '';
  const sender = document.createElement('span');
  sender.className = 'sender';
  sender.textContent = message.sender.slice(0, 8);
  item.append(sender);
  const text = document.createElement('span');
  if (message.attachment) {
    text.textContent = `📎 ${message.attachment.name} (${message.attachment.id}) ${message.text}`;
    item.dataset.attachmentId = message.attachment.id;
  } else if (message.operation) {
    text.className = 'system';
    text.textContent = `${message.operation}`;
  } else {
    text.textContent = message.text;
  }
  item.append(text);
  if (message.forwardedText !== undefined) {
    const quote = document.createElement('blockquote');
    quote.className = 'forward';
    quote.textContent = `forwarded${message.forwardedAt ? ` (${message.forwardedAt})` : ''}: ${message.forwardedText}`;
    item.append(quote);
  }
  return item;
}

function show(stanza, { prepend = false } = {}) {
  const message = describeMessage(stanza);
  const key = message.id ?? `${message.sender}:${message.text}`;
  if (state.shown.has(key)) return;
  state.shown.add(key);
  const item = messageItem(message);
  if (prepend) elements.messages.prepend(item);
  else elements.messages.append(item);
}

async function loadOlder() {
  const { session, roomJid } = state;
  const page = await session.history(roomJid, { max: 20, before: state.oldestArchiveId });
  for (const entry of [...page.messages].reverse()) show(entry.message, { prepend: true });
  if (page.messages.length > 0) state.oldestArchiveId = page.messages[0].id;
  elements.older.disabled = page.complete;
}

async function openRoom(room, button) {
  const { session, config } = state;
  if (state.roomJid) await session.leave(state.roomJid);
  for (const other of elements.rooms.querySelectorAll('button')) other.setAttribute('aria-current', 'false');
  button.setAttribute('aria-current', 'true');
  state.roomJid = `${room.id}@${config.mucDomain}`;
  state.oldestArchiveId = undefined;
  state.shown = new Set();
  elements.messages.replaceChildren();
  elements.title.textContent = room.name || 'Direct chat';
  elements.conversation.hidden = false;
  await session.join(state.roomJid);
  await loadOlder();
  setStatus(`In ${room.name || room.id}.`);
}

async function logIn(token) {
  const { xmpp } = await (await fetch('config.json')).json();
  if (!xmpp) {
    setStatus('This server has no XMPP WebSocket configured (CHAT_XMPP_WEBSOCKET_URL).');
    return;
  }
  state.config = xmpp;
  const rooms = await api(token, '/rooms');
  state.session = await connectXmpp({
    webSocketUrl: xmpp.webSocketUrl,
    domain: xmpp.domain,
    token,
    onMessage: (roomJid, stanza) => {
      if (roomJid === state.roomJid) show(stanza);
    },
  });
  elements.rooms.replaceChildren(
    ...rooms.map((room) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.roomId = room.id;
      button.textContent = room.name || room.id;
      button.addEventListener('click', () =>
        openRoom(room, button).catch((error) => setStatus(error.message)),
      );
      item.append(button);
      return item;
    }),
  );
  setStatus(`Logged in as ${state.session.userId}; ${rooms.length} room(s).`);
}

elements.loginForm.addEventListener('submit', (event) => {
  event.preventDefault();
  logIn(elements.token.value.trim()).catch((error) => setStatus(`Login failed: ${error.message}`));
});
elements.sendForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = elements.text.value;
  elements.text.value = '';
  state.session.say(state.roomJid, text).catch((error) => setStatus(error.message));
});
elements.older.addEventListener('click', () => loadOlder().catch((error) => setStatus(error.message)));

const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
if (fromHash) {
  elements.token.value = fromHash;
  elements.loginForm.requestSubmit();
}
