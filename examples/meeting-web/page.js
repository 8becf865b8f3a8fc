// The meeting page: pick a room, join its meeting, publish microphone, camera and screen, watch
// the others. Open it as /examples/meeting/#token=<jwt>&room=<roomId>&autojoin=1&camera=1 to join
// without clicking (the fragment never reaches the server or its logs).
import { createApi, openEvents } from './api.js';
import {
  connectionText,
  qualityForWidth,
  resetControls,
  setPressed,
  stopReason,
  toggleIds,
  wantedMedia,
} from './controls.js';
import { Meeting } from './meeting.js';

const $ = (id) => document.getElementById(id);
const hash = new URLSearchParams(location.hash.slice(1));
const state = {
  api: undefined,
  events: undefined,
  meeting: undefined,
  meetingId: undefined,
  meetingName: undefined,
  userId: undefined,
  participants: new Map(),
  /** Who talks now; kept apart from the participant list, which can arrive after the first talking event. */
  talking: new Set(),
  /** The dominant speaker (MEETING_DOMINANT_SPEAKER), highlighted until someone else takes over. */
  dominantSpeaker: undefined,
};
let maxRemoteAudioLevel = 0;
/** The last meeting events received (type, user, meeting), oldest first, for people and tests. */
const eventLog = [];
/** The toggle buttons by id. */
const buttons = Object.fromEntries(toggleIds.map((id) => [id, $(id)]));
/** Rejoins done by the page itself, for people and tests. */
let rejoins = 0;
/**
 * A rejoin in progress, so that several causes at once make one: its promise, the meeting it left,
 * why (a later, more precise cause replaces the first one) and whether a stop by a person ended it.
 */
let rejoining;

const short = (userId) => (userId === state.userId ? 'you' : userId.slice(0, 8));
const setStatus = (text) => {
  $('status').textContent = text;
};
/**
 * Says why media stopped and what the page does about it; unlike the status, it stays until the
 * next cause or the person's own Join or Leave.
 */
const setNotice = (text) => {
  $('notice').textContent = text ?? '';
  $('notice').hidden = text === undefined;
};

function userIdOf(token) {
  try {
    return JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))).sub.toLowerCase();
  } catch {
    return undefined;
  }
}

function tile(id, caption) {
  let figure = document.querySelector(`[data-tile="${CSS.escape(id)}"]`);
  if (figure === null) {
    figure = document.createElement('figure');
    figure.className = 'tile';
    figure.dataset.tile = id;
    const video = document.createElement('video');
    Object.assign(video, { autoplay: true, playsInline: true, muted: true });
    figure.append(video, document.createElement('figcaption'));
    $('tiles').append(figure);
  }
  if (caption !== undefined) figure.querySelector('figcaption').textContent = caption;
  return figure;
}

/** Tells the SFU how large each remote tile is shown, as a preferred quality per stream. */
const tileSizes = new ResizeObserver((entries) => {
  for (const entry of entries) {
    const mid = entry.target.dataset.tile?.replace(/^mid\//, '');
    const stream = state.meeting?.mids.get(mid);
    if (stream === undefined) continue;
    const width = entry.contentRect.width * devicePixelRatio;
    void state.meeting.setQuality(stream.userId, stream.type.toLowerCase(), qualityForWidth(width));
  }
});

/** What the meeting asks of the page. */
const ui = {
  status: setStatus,
  localVideo(type, media) {
    const id = `local/${type}`;
    if (media === undefined) return document.querySelector(`[data-tile="${id}"]`)?.remove();
    tile(id, `you (${type})`).querySelector('video').srcObject = media;
  },
  remoteVideo(mid, media, stream) {
    const figure = tile(
      `mid/${mid}`,
      stream ? `${short(stream.userId)} (${stream.type.toLowerCase()})` : '…',
    );
    if (stream) figure.dataset.user = stream.userId;
    figure.querySelector('video').srcObject = media;
    tileSizes.observe(figure);
  },
  labelRemoteVideo(mid, stream) {
    const figure = document.querySelector(`[data-tile="mid/${mid}"]`);
    if (figure === null) return;
    figure.dataset.user = stream.userId;
    figure.querySelector('figcaption').textContent = `${short(stream.userId)} (${stream.type.toLowerCase()})`;
    // Observing again reports the size once more, now that the tile's stream is known.
    tileSizes.unobserve(figure);
    tileSizes.observe(figure);
  },
  removeRemoteVideo(mid) {
    const figure = document.querySelector(`[data-tile="mid/${mid}"]`);
    if (figure !== null) tileSizes.unobserve(figure);
    figure?.remove();
  },
  remoteAudio(media) {
    const element = new Audio();
    element.autoplay = true;
    element.srcObject = media;
    document.body.append(element);
    const context = new AudioContext();
    void context.resume();
    const analyser = context.createAnalyser();
    analyser.fftSize = 1024;
    context.createMediaStreamSource(media).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const sample of samples) sum += sample * sample;
      maxRemoteAudioLevel = Math.max(maxRemoteAudioLevel, Math.sqrt(sum / samples.length));
    }, 50);
  },
  maxRemoteAudioLevel: () => maxRemoteAudioLevel,
  /**
   * The quality a new remote tile will need, from the width of the grid's columns (every tile is
   * one column wide; the columns exist before any tile), so that the first subscription asks for
   * it and no second negotiation follows; undefined when the grid is not laid out.
   */
  expectedQuality() {
    const column = Number.parseFloat(getComputedStyle($('tiles')).gridTemplateColumns);
    return Number.isFinite(column) && column > 0 ? qualityForWidth(column * devicePixelRatio) : undefined;
  },
  connection(connection, connectionState) {
    const text = connectionText(connection, connectionState);
    if (text !== undefined) setStatus(text);
    else if (connectionState === 'connected' && state.meetingName !== undefined)
      setStatus(`In meeting ${state.meetingName}.`);
  },
  participationLost() {
    void rejoin('The server no longer had you in the meeting.');
  },
  unpublished(type) {
    setPressed(buttons[type === 'video' ? 'camera' : 'screen'], false);
  },
};

function renderParticipants() {
  const list = $('participants');
  list.replaceChildren(
    ...[...state.participants.values()].map((participant) => {
      const item = document.createElement('li');
      item.textContent = short(participant.userId);
      item.dataset.user = participant.userId;
      item.classList.toggle('talking', state.talking.has(participant.userId));
      item.classList.toggle('speaker', state.dominantSpeaker === participant.userId);
      item.classList.toggle('muted', !participant.audioStreamEnabled);
      return item;
    }),
  );
  for (const figure of document.querySelectorAll('.tile[data-user]')) {
    figure.classList.toggle('talking', state.talking.has(figure.dataset.user));
    figure.classList.toggle('speaker', state.dominantSpeaker === figure.dataset.user);
  }
}

function onEvent(event) {
  if (event.meetingId !== undefined) {
    eventLog.push({ type: event.type, userId: event.userId, meetingId: event.meetingId, at: Date.now() });
    if (eventLog.length > 500) eventLog.shift();
  }
  if (event.type === 'MEETING_STOPPED' && rejoining?.meetingId === event.meetingId) {
    // The meeting the page is rejoining stopped meanwhile: that says better why media stopped.
    rejoining.update(stopReason(event));
    return;
  }
  if (event.type === 'resync') {
    // Events may have been missed (the session moved to another API node, or too many were kept):
    // read the meeting again instead of trusting what the page saw.
    if (state.meetingId !== undefined && rejoining === undefined) void refreshMeeting(state.meetingId);
    return;
  }
  if (state.meetingId === undefined || event.meetingId !== state.meetingId) return;
  if (event.type === 'MEETING_PARTICIPANT_TALKING') {
    if (event.isTalking) state.talking.add(event.userId);
    else state.talking.delete(event.userId);
    renderParticipants();
    return;
  }
  if (event.type === 'MEETING_DOMINANT_SPEAKER') {
    state.dominantSpeaker = event.userId;
    renderParticipants();
    return;
  }
  const { meeting } = state;
  if (meeting === undefined) return;
  const participant = state.participants.get(event.userId);
  switch (event.type) {
    case 'MEETING_PARTICIPANT_JOINED':
      state.participants.set(event.userId, { userId: event.userId, audioStreamEnabled: false });
      break;
    case 'MEETING_PARTICIPANT_LEFT':
      state.participants.delete(event.userId);
      state.talking.delete(event.userId);
      void meeting.watch(event.userId, 'video', false);
      void meeting.watch(event.userId, 'screen', false);
      break;
    case 'MEETING_AUDIO_STREAM_CHANGED':
      if (participant) participant.audioStreamEnabled = event.active;
      if (event.userId === state.userId && event.moderatorId) setStatus('A moderator muted your microphone.');
      if (event.userId === state.userId) $('mic').setAttribute('aria-pressed', String(event.active));
      break;
    case 'MEETING_MEDIA_STREAM_CHANGED':
      void meeting.watch(event.userId, event.mediaType.toLowerCase(), event.active);
      break;
    case 'MEETING_PARTICIPANT_SUBSCRIBED':
      meeting.subscribed(event.streams);
      break;
    case 'MEETING_STOPPED': {
      const { text, restart } = stopReason(event);
      if (restart) {
        void rejoin(`${text} Starting it again…`);
        return;
      }
      setStatus(text);
      setNotice(text);
      void leave(false);
      return;
    }
    case 'MEETING_PARTICIPANT_CLASHED':
    case 'MEETING_DELETED': {
      const text =
        event.type === 'MEETING_PARTICIPANT_CLASHED'
          ? 'You joined from somewhere else.'
          : 'The meeting was deleted.';
      setStatus(text);
      setNotice(text);
      void leave(false);
      return;
    }
  }
  renderParticipants();
}

async function loadRooms() {
  const token = $('token').value.trim();
  if (!token) return;
  const rooms = await createApi(token)('GET', '/rooms');
  $('room').replaceChildren(
    ...rooms.map((room) =>
      Object.assign(document.createElement('option'), { value: room.id, textContent: room.name || room.id }),
    ),
  );
  if (hash.get('room')) $('room').value = hash.get('room');
}

/**
 * Reads the meeting again after a `resync`: participants and the streams to watch follow the server;
 * a meeting that stopped, or no longer lists this user, is joined again.
 */
async function refreshMeeting(meetingId) {
  let current;
  try {
    current = await state.api('GET', `/meetings/${meetingId}`);
  } catch (error) {
    if (error.status === 404) void rejoin('The meeting changed while the connection was interrupted.');
    return;
  }
  const { meeting } = state;
  if (state.meetingId !== meetingId || meeting === undefined) return;
  if (!current.active || !current.participants.some((participant) => participant.userId === state.userId)) {
    void rejoin('The meeting changed while the connection was interrupted.');
    return;
  }
  const present = new Set(current.participants.map((participant) => participant.userId));
  for (const userId of [...state.participants.keys()]) {
    if (present.has(userId)) continue;
    state.participants.delete(userId);
    state.talking.delete(userId);
    void meeting.watch(userId, 'video', false);
    void meeting.watch(userId, 'screen', false);
  }
  for (const participant of current.participants) {
    state.participants.set(participant.userId, participant);
    if (participant.userId === state.userId) continue;
    void meeting.watch(participant.userId, 'video', Boolean(participant.videoStreamEnabled));
    void meeting.watch(participant.userId, 'screen', Boolean(participant.screenStreamEnabled));
  }
  renderParticipants();
}

/** Opens /events once per page; a dropped socket comes back with the same session when it can. */
async function ensureEvents(token) {
  if (state.events !== undefined) return state.events;
  state.events = await openEvents(token, onEvent, {
    onSession(session) {
      if (session.state === 'reconnecting' && state.meetingId !== undefined)
        setStatus('The connection to the server was interrupted; reconnecting…');
      if (session.state === 'resumed' && state.meetingName !== undefined)
        setStatus(`In meeting ${state.meetingName}.`);
      // The server no longer had our session (it ended after its grace): join again.
      if (session.state === 'lost' && state.meetingId !== undefined)
        void rejoin('The connection to the server was lost for too long.');
    },
  });
  return state.events;
}

/**
 * Joins the room's meeting (creating and starting it when needed) and turns on what `wanted` says:
 * the microphone, the camera, the screen.
 */
async function join(wanted = { microphone: true, camera: false, screen: false }) {
  const token = $('token').value.trim();
  const roomId = $('room').value;
  state.api = createApi(token);
  state.userId = userIdOf(token);
  setStatus('Connecting…');
  const events = await ensureEvents(token);
  const roomMeeting = () => state.api('GET', `/rooms/${roomId}/meeting`);
  let found = await roomMeeting().catch((error) => {
    if (error.status !== 404) throw error;
    // Someone else may create it at the same moment: then theirs is the one.
    return state.api('POST', '/meetings', { roomId }).catch((conflict) => {
      if (conflict.status === 409) return roomMeeting();
      throw conflict;
    });
  });
  // Starting an active meeting answers it unchanged, so two pages restarting one meeting agree.
  if (!found.active) found = await state.api('POST', `/meetings/${found.id}/start`);
  state.meetingId = found.id;
  state.meetingName = found.name;
  const joined = await state.api(
    'POST',
    `/meetings/${found.id}/join`,
    { audioStreamEnabled: true, videoStreamEnabled: false },
    {
      'queue-id': events.queueId,
    },
  );
  const meeting = new Meeting({
    api: state.api,
    events,
    meetingId: found.id,
    userId: state.userId,
    iceServers: joined.iceServers,
    ui,
  });
  state.meeting = meeting;
  const current = await state.api('GET', `/meetings/${found.id}`);
  for (const participant of current.participants) state.participants.set(participant.userId, participant);
  renderParticipants();
  $('join-form').hidden = true;
  $('controls').hidden = false;
  resetControls(buttons);
  await meeting.startAudio();
  setPressed(buttons.mic, true);
  if (!wanted.microphone) {
    await meeting.setMicrophone(false);
    setPressed(buttons.mic, false);
  }
  for (const participant of current.participants) {
    if (participant.videoStreamEnabled) void meeting.watch(participant.userId, 'video', true);
    if (participant.screenStreamEnabled) void meeting.watch(participant.userId, 'screen', true);
  }
  if (wanted.camera) await toggle(buttons.camera, () => meeting.publish('video'));
  if (wanted.screen) {
    // A browser may want a click for the screen again: then the button says it is off.
    await meeting.publish('screen').then(
      () => setPressed(buttons.screen, true),
      () => setStatus('Click Screen to share your screen again.'),
    );
  }
  setStatus(`In meeting ${found.name}.`);
}

/**
 * Leaves the meeting: closes the media connections (telling the server when `notify`), empties the
 * participants and tiles, and resets the controls. `keepEvents` keeps the /events session (the page
 * is about to join again).
 */
async function leave(notify = true, { keepEvents = false } = {}) {
  const { meeting } = state;
  state.meeting = undefined;
  state.meetingId = undefined;
  state.meetingName = undefined;
  state.talking.clear();
  state.dominantSpeaker = undefined;
  await meeting?.close(notify);
  if (!keepEvents) {
    state.events?.close();
    state.events = undefined;
  }
  state.participants.clear();
  $('tiles').replaceChildren();
  renderParticipants();
  resetControls(buttons);
  $('join-form').hidden = false;
  $('controls').hidden = true;
}

/**
 * Leaves and joins again by itself, restoring microphone, camera and screen: after the meeting
 * stopped because its media server failed (the join starts it again), or after the server dropped
 * the page's session. Tries for a minute, a second or a few apart. A `MEETING_STOPPED` of the left
 * meeting during the rejoin replaces `why`; one without `media_server_failed` (a person stopped it)
 * ends the rejoin.
 */
function rejoin(why) {
  if (rejoining !== undefined) return rejoining.promise;
  const current = { meetingId: state.meetingId, why, stopped: undefined };
  current.update = ({ text, restart }) => {
    if (restart) current.why = `${text} Starting it again…`;
    else current.stopped = text;
    setNotice(restart ? `${current.why} Rejoining…` : text);
  };
  rejoining = current;
  current.promise = rejoinLoop(current).finally(() => {
    rejoining = undefined;
  });
  return current.promise;
}

async function rejoinLoop(current) {
  const wanted = wantedMedia(buttons);
  setNotice(`${current.why} Rejoining…`);
  setStatus('Rejoining…');
  await leave(false, { keepEvents: true });
  for (let attempt = 1; attempt <= 20 && current.stopped === undefined; attempt += 1) {
    try {
      // The join names the /events session: it must be one the server still has.
      await state.events?.ensureLive();
      await join(wanted);
      if (current.stopped !== undefined) break;
      rejoins += 1;
      document.body.dataset.rejoins = String(rejoins);
      setNotice(`${current.why} Rejoined by itself at ${new Date().toLocaleTimeString()}.`);
      return;
    } catch (error) {
      // Tell the server too: a join that got through must not make the next attempt a 409.
      await leave(true, { keepEvents: true });
      setStatus(`Could not rejoin yet (${error.message}); trying again…`);
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000 * attempt, 5_000)));
    }
  }
  if (current.stopped !== undefined) {
    await leave(true);
    setStatus(current.stopped);
    return;
  }
  setNotice(`${current.why} Could not rejoin: join again when the server is back.`);
}

async function toggle(button, action) {
  const on = button.getAttribute('aria-pressed') !== 'true';
  try {
    await action(on);
    setPressed(button, on);
  } catch (error) {
    setStatus(error.message);
  }
}

$('token').addEventListener('change', () => loadRooms().catch((error) => setStatus(error.message)));
$('join-form').addEventListener('submit', (event) => {
  event.preventDefault();
  setNotice(undefined);
  join().catch((error) => setStatus(`Could not join: ${error.message}`));
});
buttons.mic.addEventListener('click', () => toggle(buttons.mic, (on) => state.meeting.setMicrophone(on)));
buttons.camera.addEventListener('click', () =>
  toggle(buttons.camera, (on) => (on ? state.meeting.publish('video') : state.meeting.unpublish('video'))),
);
buttons.screen.addEventListener('click', () =>
  toggle(buttons.screen, (on) => (on ? state.meeting.publish('screen') : state.meeting.unpublish('screen'))),
);
$('leave').addEventListener('click', () => {
  setNotice(undefined);
  void leave();
});

/** For people poking in the console and for the browser test. */
window.meetingPage = {
  state,
  stats: () =>
    state.meeting?.stats() ??
    Promise.resolve({ framesDecoded: 0, audioPacketsReceived: 0, remoteAudioLevel: 0 }),
  talking: () => [...state.talking],
  rejoins: () => rejoins,
  iceRestarts: () => state.meeting?.iceRestarts ?? 0,
  events: () => [...eventLog],
  dominantSpeaker: () => state.dominantSpeaker,
};

if (hash.get('token')) {
  $('token').value = hash.get('token');
  await loadRooms().catch((error) => setStatus(error.message));
  if (hash.get('autojoin') === '1') {
    try {
      await join();
      if (hash.get('camera') === '1') await toggle(buttons.camera, () => state.meeting.publish('video'));
      document.body.dataset.ready = 'true';
    } catch (error) {
      setStatus(`Could not join: ${error.message}`);
      document.body.dataset.ready = 'error';
    }
  }
}
