// One user's presence in a meeting: the audio connection (the SFU sends back the mix of the
// others), one publish connection per camera or screen, and one subscribe connection for every
// remote video, negotiated through the HTTP API with answers and offers arriving on /events.
// A connection that goes `disconnected` (for a moment) or `failed` restarts ICE on itself: the
// client-offered ones send a new offer with new ICE credentials to the endpoint they used, the
// subscribe connection asks the server for a restart offer (`iceRestart` in /media/subscribe).
import { gathered } from './api.js';

/** How long a connection may stay `disconnected` before the page restarts its ICE. */
const disconnectedPatienceMs = 1_000;
/** The least time between two ICE restarts of one connection. */
const restartSpacingMs = 3_000;

const key = (userId, type) => `${userId}/${type}`;

/**
 * Simulcast encodings of the camera, lowest first: a quarter, half and full resolution. The SFU
 * forwards each viewer one of them, by the quality it asks for and its bandwidth.
 */
const cameraEncodings = [
  { rid: 'l', scaleResolutionDownBy: 4, maxBitrate: 150_000 },
  { rid: 'm', scaleResolutionDownBy: 2, maxBitrate: 400_000 },
  { rid: 'h', scaleResolutionDownBy: 1, maxBitrate: 1_200_000 },
];

/** The camera's transceiver, with simulcast where the browser takes `sendEncodings` with rids. */
function addCameraTransceiver(peer, track, media) {
  try {
    return peer.addTransceiver(track, {
      direction: 'sendonly',
      streams: [media],
      sendEncodings: cameraEncodings,
    });
  } catch {
    return peer.addTransceiver(track, { direction: 'sendonly', streams: [media] });
  }
}

export class Meeting {
  constructor({ api, events, meetingId, userId, iceServers, ui }) {
    Object.assign(this, { api, events, meetingId, userId, iceServers, ui });
    this.publishers = new Map();
    this.watched = new Set();
    /** Preferred quality (`low`, `medium`, `high`) per watched stream, by the size of its tile. */
    this.qualities = new Map();
    this.mids = new Map();
    this.pending = Promise.resolve();
    this.audioPeer = undefined;
    this.subscriber = undefined;
    this.remoteAudio = undefined;
    this.closed = false;
    /** Connection name -> when its last ICE restart began. */
    this.restarts = new Map();
    /** ICE restarts that completed (the new answer applied), for people and tests. */
    this.iceRestarts = 0;
  }

  /**
   * Reports the state changes of `peer` (named `connection`) and restarts its ICE when it breaks.
   * A break often means the network changed, which can leave /events hanging too: it is checked
   * at once, so that the restart's answer has a live socket to come on.
   */
  watchConnection(connection, peer) {
    peer.addEventListener('connectionstatechange', () => {
      const state = peer.connectionState;
      if (this.closed || state === 'closed') return;
      this.ui.connection(connection, state);
      if (state === 'disconnected' || state === 'failed') void this.events.ensureLive();
      if (state === 'failed') void this.restartIce(connection, peer);
      if (state === 'disconnected') {
        setTimeout(() => {
          if (peer.connectionState === 'disconnected') void this.restartIce(connection, peer);
        }, disconnectedPatienceMs);
      }
    });
  }

  /** Whether `peer` still needs its ICE restarted: open and not connected. */
  stillBroken(peer) {
    return !this.closed && ['disconnected', 'failed'].includes(peer.connectionState);
  }

  /**
   * Restarts ICE on one connection, at most once per {@link restartSpacingMs}; failures are shown,
   * and tried again while the connection stays broken.
   */
  async restartIce(connection, peer) {
    const last = this.restarts.get(connection) ?? 0;
    if (this.closed || Date.now() - last < restartSpacingMs) return;
    this.restarts.set(connection, Date.now());
    try {
      await this.events.ensureLive();
      if (connection === 'watching') {
        const restart = this.pending.then(() =>
          this.negotiate({ subscribe: [], unsubscribe: [], iceRestart: true }),
        );
        // A failed restart must not fail the changes queued after it.
        this.pending = restart.catch(() => {});
        await restart;
        this.iceRestarts += 1;
        return;
      }
      peer.restartIce();
      await peer.setLocalDescription(await peer.createOffer({ iceRestart: true }));
      await gathered(peer);
      const sdp = peer.localDescription.sdp;
      if (connection === 'audio') {
        const answered = this.events.next(
          'MEETING_AUDIO_ANSWERED',
          (event) => event.meetingId === this.meetingId,
        );
        await this.api('PUT', this.path('/audio/offer'), { sdp });
        await peer.setRemoteDescription({ type: 'answer', sdp: (await answered).sdp });
      } else {
        const mediaType = connection.toUpperCase();
        const answered = this.events.next('MEETING_SDP_ANSWERED', (event) => event.mediaType === mediaType);
        await this.api('PUT', this.path('/media'), { type: connection, enabled: true, sdp });
        await peer.setRemoteDescription({ type: 'answer', sdp: (await answered).sdp });
      }
      this.iceRestarts += 1;
    } catch (error) {
      if (this.closed) return;
      // An offer left without its answer would block the next one.
      if (peer.signalingState === 'have-local-offer')
        await peer.setLocalDescription({ type: 'rollback' }).catch(() => {});
      this.ui.status(`Could not restart the ${connection} connection: ${error.message}`);
      // 404: the server no longer has this participant (its meeting stopped or it was removed).
      if (error.status === 404) {
        this.ui.participationLost?.();
        return;
      }
      setTimeout(() => {
        if (this.stillBroken(peer)) void this.restartIce(connection, peer);
      }, restartSpacingMs);
    }
  }

  path(suffix = '') {
    return `/meetings/${this.meetingId}${suffix}`;
  }

  newPeer() {
    return new RTCPeerConnection({ iceServers: this.iceServers, bundlePolicy: 'max-bundle' });
  }

  /** Connects the microphone; the answer's stream is the mix of everyone else who is unmuted. */
  async startAudio() {
    const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
    const peer = this.newPeer();
    this.audioPeer = peer;
    this.watchConnection('audio', peer);
    peer.addTransceiver(microphone.getAudioTracks()[0], { direction: 'sendrecv', streams: [microphone] });
    peer.addEventListener('track', (event) => {
      this.remoteAudio = new MediaStream([event.track]);
      this.ui.remoteAudio(this.remoteAudio);
    });
    await peer.setLocalDescription(await peer.createOffer());
    await gathered(peer);
    const answered = this.events.next(
      'MEETING_AUDIO_ANSWERED',
      (event) => event.meetingId === this.meetingId,
    );
    await this.api('PUT', this.path('/audio/offer'), { sdp: peer.localDescription.sdp });
    await peer.setRemoteDescription({ type: 'answer', sdp: (await answered).sdp });
    await this.setMicrophone(true);
  }

  /** Unmutes or mutes the microphone in the others' mix. */
  async setMicrophone(enabled) {
    await this.api('PUT', this.path('/audio'), { enabled });
  }

  /** Publishes the camera (`video`) or the screen (`screen`); VP8 is what the SFU forwards. */
  async publish(type) {
    const media =
      type === 'video'
        ? await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 360, frameRate: 24 } })
        : await navigator.mediaDevices.getDisplayMedia({ video: true });
    const track = media.getVideoTracks()[0];
    const peer = this.newPeer();
    this.watchConnection(type, peer);
    const transceiver =
      type === 'video'
        ? addCameraTransceiver(peer, track, media)
        : peer.addTransceiver(track, { direction: 'sendonly', streams: [media] });
    const codecs = RTCRtpSender.getCapabilities('video')?.codecs ?? [];
    const vp8 = codecs.filter((codec) => /video\/(vp8|rtx)/i.test(codec.mimeType));
    if (vp8.length > 0 && transceiver.setCodecPreferences) transceiver.setCodecPreferences(vp8);
    await peer.setLocalDescription(await peer.createOffer());
    await gathered(peer);
    const mediaType = type.toUpperCase();
    const answered = this.events.next('MEETING_SDP_ANSWERED', (event) => event.mediaType === mediaType);
    await this.api('PUT', this.path('/media'), { type, enabled: true, sdp: peer.localDescription.sdp });
    await peer.setRemoteDescription({ type: 'answer', sdp: (await answered).sdp });
    this.publishers.set(type, { peer, media });
    track.addEventListener('ended', () => void this.unpublish(type));
    this.ui.localVideo(type, media);
  }

  /** Stops publishing the camera or screen. */
  async unpublish(type) {
    const publisher = this.publishers.get(type);
    if (publisher === undefined) return;
    this.publishers.delete(type);
    for (const track of publisher.media.getTracks()) track.stop();
    publisher.peer.close();
    this.ui.localVideo(type, undefined);
    this.ui.unpublished?.(type);
    await this.api('PUT', this.path('/media'), { type, enabled: false }).catch(() => {});
  }

  /** Watches (or stops watching) a remote stream; changes are negotiated one at a time. */
  watch(userId, type, on) {
    if (userId === this.userId || this.watched.has(key(userId, type)) === on) return this.pending;
    if (on) this.watched.add(key(userId, type));
    else this.watched.delete(key(userId, type));
    const quality = this.qualities.get(key(userId, type)) ?? this.ui.expectedQuality?.();
    if (on && quality !== undefined) this.qualities.set(key(userId, type), quality);
    const change = on
      ? { subscribe: [{ userId, type, ...(quality === undefined ? {} : { quality }) }], unsubscribe: [] }
      : { subscribe: [], unsubscribe: [{ userId, type }] };
    this.pending = this.pending
      .then(() => this.negotiate(change))
      .catch((error) => {
        if (on) this.watched.delete(key(userId, type));
        this.ui.status(`could not ${on ? 'watch' : 'stop watching'} a stream: ${error.message}`);
      });
    return this.pending;
  }

  /**
   * Asks the SFU for at most `quality` of a watched stream (`low` for a small tile); it takes effect
   * without a new track, at the next keyframe of that layer.
   */
  setQuality(userId, type, quality) {
    const streamKey = key(userId, type);
    if (this.qualities.get(streamKey) === quality) return this.pending;
    this.qualities.set(streamKey, quality);
    if (!this.watched.has(streamKey)) return this.pending;
    this.pending = this.pending
      .then(() => this.negotiate({ subscribe: [{ userId, type, quality }], unsubscribe: [] }))
      .catch((error) => this.ui.status(`could not change a stream's quality: ${error.message}`));
    return this.pending;
  }

  async negotiate(change) {
    const offered = this.events.next('MEETING_SDP_OFFERED', (event) => event.meetingId === this.meetingId);
    await this.api('PUT', this.path('/media/subscribe'), change);
    const { sdp } = await offered;
    if (this.subscriber === undefined) {
      this.subscriber = this.newPeer();
      this.watchConnection('watching', this.subscriber);
      this.subscriber.addEventListener('track', (event) => {
        const mid = event.transceiver.mid;
        this.ui.remoteVideo(mid, new MediaStream([event.track]), this.mids.get(mid));
      });
    }
    await this.subscriber.setRemoteDescription({ type: 'offer', sdp });
    await this.subscriber.setLocalDescription(await this.subscriber.createAnswer());
    await gathered(this.subscriber);
    await this.api('PUT', this.path('/media/answer'), { sdp: this.subscriber.localDescription.sdp });
  }

  /** Keeps the mid map and drops tiles of streams no longer carried. */
  subscribed(streams) {
    const carried = new Set(streams.map((stream) => stream.mid));
    for (const mid of this.mids.keys()) if (!carried.has(mid)) this.ui.removeRemoteVideo(mid);
    this.mids = new Map(streams.map((stream) => [stream.mid, stream]));
    for (const [mid, stream] of this.mids) this.ui.labelRemoteVideo(mid, stream);
  }

  /**
   * Decoded video frames, audio packets received (the mix) and the loudest remote audio level seen,
   * for people and tests.
   */
  async stats() {
    let framesDecoded = 0;
    let audioPacketsReceived = 0;
    const report = this.subscriber ? await this.subscriber.getStats() : new Map();
    for (const entry of report.values()) {
      if (entry.type === 'inbound-rtp' && entry.kind === 'video') framesDecoded += entry.framesDecoded ?? 0;
    }
    const audioReport = this.audioPeer ? await this.audioPeer.getStats() : new Map();
    for (const entry of audioReport.values()) {
      if (entry.type === 'inbound-rtp' && entry.kind === 'audio')
        audioPacketsReceived += entry.packetsReceived ?? 0;
    }
    return { framesDecoded, audioPacketsReceived, remoteAudioLevel: this.ui.maxRemoteAudioLevel() };
  }

  /** Closes every connection; `notify` also tells the server. */
  async close(notify = true) {
    this.closed = true;
    for (const type of [...this.publishers.keys()]) {
      const publisher = this.publishers.get(type);
      for (const track of publisher.media.getTracks()) track.stop();
      publisher.peer.close();
    }
    this.publishers.clear();
    this.audioPeer?.close();
    this.subscriber?.close();
    if (notify) await this.api('POST', this.path('/leave')).catch(() => {});
  }
}
