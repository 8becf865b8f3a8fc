// The meeting page: pick a room, join its meeting, publish microphone, camera and screen, watch
// the others. Open it as /examples/meeting/#token=<jwt>&room=<roomId>&autojoin=1&camera=1 to join
// without clicking (the fragment never reaches the server or its logs).
import { createApi, openEvents } from './api.js';
import { Meeting } from './meeting.js';

const $ = (id) => document.getElementById(id);
const hash = new URLSearchParams(location.hash.slice(1));
const state = {
  api: undefined,
  events: undefined,
  meeting: undefined,
  meetingId: undefined,
  userId: undefined,
  participants: new Map(),
  /** Who talks now; kept apart from the participant list, which can arrive after the first talking event. */
  talking: new Set(),
  /** The dominant speaker (MEETING_DOMINANT_SPEAKER), highlighted until someone else takes over. */
  dominantSpeaker: undefined,
};
let maxRemoteAudioLevel = 0;

const short = (userId) => (userId === state.userId ? 'you' : userId.slice(0, 8));
const setStatus = (text) => {
  $('status').textContent = text;
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
  },
  labelRemoteVideo(mid, stream) {
    const figure = document.querySelector(`[data-tile="mid/${mid}"]`);
    if (figure === null) return;
    figure.dataset.user = stream.userId;
    figure.querySelector('figcaption').textContent = `${short(stream.userId)} (${stream.type.toLowerCase()})`;
  },
  removeRemoteVideo(mid) {
    document.querySelector(`[data-tile="mid/${mid}"]`)?.remove();
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
    case 'MEETING_PARTICIPANT_CLASHED':
    case 'MEETING_STOPPED':
    case 'MEETING_DELETED':
      setStatus(
        event.type === 'MEETING_PARTICIPANT_CLASHED'
          ? 'You joined from somewhere else.'
          : 'The meeting ended.',
      );
      void leave(false);
      return;
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

async function join() {
  const token = $('token').value.trim();
  const roomId = $('room').value;
  state.api = createApi(token);
  state.userId = userIdOf(token);
  setStatus('Connecting…');
  state.events = await openEvents(token, onEvent);
  const roomMeeting = () => state.api('GET', `/rooms/${roomId}/meeting`);
  let found = await roomMeeting().catch((error) => {
    if (error.status !== 404) throw error;
    // Someone else may create it at the same moment: then theirs is the one.
    return state.api('POST', '/meetings', { roomId }).catch((conflict) => {
      if (conflict.status === 409) return roomMeeting();
      throw conflict;
    });
  });
  if (!found.active) found = await state.api('POST', `/meetings/${found.id}/start`);
  state.meetingId = found.id;
  const joined = await state.api(
    'POST',
    `/meetings/${found.id}/join`,
    { audioStreamEnabled: true, videoStreamEnabled: false },
    {
      'queue-id': state.events.queueId,
    },
  );
  const meeting = new Meeting({
    api: state.api,
    events: state.events,
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
  await meeting.startAudio();
  $('mic').setAttribute('aria-pressed', 'true');
  for (const participant of current.participants) {
    if (participant.videoStreamEnabled) void meeting.watch(participant.userId, 'video', true);
    if (participant.screenStreamEnabled) void meeting.watch(participant.userId, 'screen', true);
  }
  setStatus(`In meeting ${found.name}.`);
}

async function leave(notify = true) {
  const { meeting } = state;
  state.meeting = undefined;
  state.meetingId = undefined;
  state.talking.clear();
  state.dominantSpeaker = undefined;
  await meeting?.close(notify);
  state.events?.close();
  state.participants.clear();
  $('tiles').replaceChildren();
  renderParticipants();
  $('join-form').hidden = false;
  $('controls').hidden = true;
}

async function toggle(button, action) {
  const on = button.getAttribute('aria-pressed') !== 'true';
  try {
    await action(on);
    button.setAttribute('aria-pressed', String(on));
  } catch (error) {
    setStatus(error.message);
  }
}

$('token').addEventListener('change', () => loadRooms().catch((error) => setStatus(error.message)));
$('join-form').addEventListener('submit', (event) => {
  event.preventDefault();
  join().catch((error) => setStatus(`Could not join: ${error.message}`));
});
$('mic').addEventListener('click', () => toggle($('mic'), (on) => state.meeting.setMicrophone(on)));
$('camera').addEventListener('click', () =>
  toggle($('camera'), (on) => (on ? state.meeting.publish('video') : state.meeting.unpublish('video'))),
);
$('screen').addEventListener('click', () =>
  toggle($('screen'), (on) => (on ? state.meeting.publish('screen') : state.meeting.unpublish('screen'))),
);
$('leave').addEventListener('click', () => void leave());

/** For people poking in the console and for the browser test. */
window.meetingPage = {
  state,
  stats: () => state.meeting?.stats() ?? Promise.resolve({ framesDecoded: 0, remoteAudioLevel: 0 }),
  talking: () => [...state.talking],
  dominantSpeaker: () => state.dominantSpeaker,
};

if (hash.get('token')) {
  $('token').value = hash.get('token');
  await loadRooms().catch((error) => setStatus(error.message));
  if (hash.get('autojoin') === '1') {
    try {
      await join();
      if (hash.get('camera') === '1') await toggle($('camera'), () => state.meeting.publish('video'));
      document.body.dataset.ready = 'true';
    } catch (error) {
      setStatus(`Could not join: ${error.message}`);
      document.body.dataset.ready = 'error';
    }
  }
}
