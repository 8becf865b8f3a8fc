// The chat page: rooms from the API (kept live from /events), messages and history over XMPP.
import { createNames } from './chat-text.js';
import { createMessagesView } from './messages-view.js';
import { claimsOf, connectXmpp, describeMessage } from './xmpp.js';

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
  token: undefined,
  session: undefined,
  config: undefined,
  roomJid: undefined,
  oldestArchiveId: undefined,
  view: undefined,
  /** Unread messages per room JID, for the rooms not open. */
  unread: new Map(),
};

const setStatus = (text) => {
  elements.status.textContent = text;
};

async function api(path) {
  const response = await fetch(path, { headers: { authorization: `Bearer ${state.token}` } });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

const roomJidOf = (roomId) => `${roomId}@${state.config.mucDomain}`;
const roomButton = (roomJid) =>
  elements.rooms.querySelector(`button[data-room-id="${CSS.escape(roomJid.split('@')[0])}"]`);

function showUnread(roomJid) {
  const badge = roomButton(roomJid)?.querySelector('.unread');
  if (!badge) return;
  const count = state.unread.get(roomJid) ?? 0;
  badge.textContent = count > 0 ? String(count) : '';
  badge.hidden = count === 0;
}

function onMessage(roomJid, stanza) {
  const message = describeMessage(stanza);
  if (roomJid === state.roomJid) {
    state.view.add([message]);
    return;
  }
  if (message.sender === state.session.userId) return;
  state.unread.set(roomJid, (state.unread.get(roomJid) ?? 0) + 1);
  showUnread(roomJid);
}

async function loadOlder() {
  const { session, roomJid } = state;
  const page = await session.history(roomJid, { max: 20, before: state.oldestArchiveId });
  state.view.add(page.messages.map((entry) => describeMessage(entry.message, entry.at)));
  if (page.messages.length > 0) state.oldestArchiveId = page.messages[0].id;
  elements.older.disabled = page.complete;
}

async function openRoom(room, button) {
  const { session } = state;
  if (state.roomJid) await session.leave(state.roomJid);
  for (const other of elements.rooms.querySelectorAll('button')) other.setAttribute('aria-current', 'false');
  button.setAttribute('aria-current', 'true');
  state.roomJid = roomJidOf(room.id);
  state.unread.delete(state.roomJid);
  showUnread(state.roomJid);
  state.oldestArchiveId = undefined;
  state.view.clear();
  elements.title.textContent = room.name || 'Direct chat';
  elements.conversation.hidden = false;
  await session.join(state.roomJid);
  await loadOlder();
  setStatus(`In ${room.name || room.id}.`);
}

/** Adds a room to the list (once), newest first when it arrives live. */
function addRoom(room, { live = false } = {}) {
  if (roomButton(roomJidOf(room.id))) return;
  const item = document.createElement('li');
  const button = document.createElement('button');
  button.type = 'button';
  button.dataset.roomId = room.id;
  const name = document.createElement('span');
  name.textContent = room.name || 'Direct chat';
  const badge = document.createElement('span');
  badge.className = 'unread';
  badge.hidden = true;
  badge.setAttribute('aria-label', 'unread messages');
  button.append(name, ' ', badge);
  button.addEventListener('click', () => openRoom(room, button).catch((error) => setStatus(error.message)));
  item.append(button);
  if (live) elements.rooms.prepend(item);
  else elements.rooms.append(item);
  showUnread(roomJidOf(room.id));
}

function removeRoom(roomId) {
  roomButton(roomJidOf(roomId))?.closest('li')?.remove();
}

/** Follows `/events`: rooms the user joins or loses appear and go without reloading. */
function followEvents() {
  // Browsers cannot set headers on a WebSocket: /events reads the token from this cookie.
  // biome-ignore lint/suspicious/noDocumentCookie: one cookie, set once; the Cookie Store API is not everywhere
  document.cookie = `ZM_AUTH_TOKEN=${state.token}; path=/events; SameSite=Strict`;
  const socket = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/events`);
  const me = state.session.userId;
  socket.addEventListener('message', (frame) => {
    const event = JSON.parse(frame.data);
    const added =
      event.type === 'ROOM_CREATED' || (event.type === 'ROOM_MEMBER_ADDED' && event.userId === me);
    const gone =
      event.type === 'ROOM_DELETED' || (event.type === 'ROOM_MEMBER_REMOVED' && event.userId === me);
    if (added)
      api(`/rooms/${event.roomId}`)
        .then((room) => addRoom(room, { live: true }))
        .catch(() => {});
    if (gone) removeRoom(event.roomId);
    if (event.type === 'resync')
      api('/rooms')
        .then((rooms) => {
          for (const room of rooms) addRoom(room);
        })
        .catch(() => {});
  });
  socket.addEventListener('close', () => setTimeout(followEvents, 2000));
}

async function logIn(token) {
  const { xmpp } = await (await fetch('config.json')).json();
  if (!xmpp) {
    setStatus('This server has no XMPP WebSocket configured (CHAT_XMPP_WEBSOCKET_URL).');
    return;
  }
  state.config = xmpp;
  state.token = token;
  const [rooms, directory] = await Promise.all([
    api('/rooms'),
    api('directory.json').catch(() => ({ names: {} })),
  ]);
  state.session = await connectXmpp({
    webSocketUrl: xmpp.webSocketUrl,
    domain: xmpp.domain,
    token,
    onMessage,
  });
  const nameOf = createNames({
    directory: directory.names,
    userId: state.session.userId,
    tokenName: claimsOf(token).name,
  });
  state.view = createMessagesView(elements.messages, nameOf);
  elements.rooms.replaceChildren();
  for (const room of rooms) addRoom(room);
  followEvents();
  setStatus(`Logged in as ${nameOf(state.session.userId)}; ${rooms.length} room(s).`);
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
