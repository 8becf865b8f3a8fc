// SFU benchmark: our media node against Janus Gateway (Debian's janus, installed when missing), in
// the same run, alternating, with the same werift clients. The SFU runs as a deployment runs it: in a
// media node process (NODE_ROLES=media) driven over Redis, and its CPU is the whole process's; Janus's
// CPU is its whole process's (every thread) with `event_loops = 2`.
//
// Video: one ~1 Mbit/s synthetic VP8 publisher and N werift subscribers, all N set up at once, in a
// child process. Per N: setup time (first request to the last subscriber connected), connect rate,
// SFU CPU, loss, latency p50/p99; then streams per core per added stream between the smallest and
// the largest N of a round. Audio: N participants of one mixed room (ours) or AudioBridge room
// (Janus, 16 kHz like ours), all or two of them sending a tone at 50 packets a second from a
// drift-free clock; the server's CPU per participant and the packets a second each one receives.
//
//   pnpm build && node bench/sfu.mjs [quick|full] [--rounds=2] [--profile=DIR]
// quick: N = 50 and 200, audio 10 and 30 participants; full adds N = 100. --profile passes
// --cpu-prof to our media node (profiles land in DIR). Needs the local Redis.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { openJanusSession, startJanus } from './lib/janus.mjs';
import { cpuMillisecondsOf, startReferenceServer } from './lib/processes.mjs';

const dist = new URL('../packages/webrtc-sfu/dist/', import.meta.url);
const sfuPackage = await import(new URL('index.js', dist).href);
const testing = await import(new URL('testing.js', dist).href);
const windowMs = 4_000;
const audioWindowMs = 5_000;
const bitrate = 1_000_000;
const connectDeadlineMs = 60_000;
const profiling = process.argv.some((arg) => arg.startsWith('--profile='));

function percentile(values, fraction) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** RFC 6464's level of a PCM frame: minus its RMS level in dBov, 0 to 127. */
function levelOf(pcm) {
  let sum = 0;
  for (const sample of pcm) sum += sample * sample;
  const rms = Math.sqrt(sum / pcm.length) / 32_768;
  return rms === 0 ? 127 : Math.min(127, Math.max(0, Math.round(-20 * Math.log10(rms))));
}

// ---------------------------------------------------------------- client process
async function clientProcess() {
  // werift's ES module build, the one the testing clients use (its classes are checked with instanceof).
  const weriftMain = createRequire(new URL('../packages/webrtc-sfu/package.json', import.meta.url)).resolve(
    'werift',
  );
  const { MediaStreamTrack, RtpHeader, RtpPacket, useAudioLevelIndication } = await import(
    `${weriftMain.split('/lib/')[0]}/lib/index.mjs`
  );
  const send = (message) => process.send(message);
  // Pairs are limited to loopback, plus this host's own address that Janus gathers on when the
  // server is Janus. The clients take it at construction: werift reads the pair filter when it
  // creates a transport (the publisher's at addTransceiver), so setting it afterwards came too late
  // for the publisher, whose only pair with Janus was then filtered out ("ICE negotiation failed").
  const ownAddresses = process.env.BENCH_SFU_ALSO_ADDRESS ? [process.env.BENCH_SFU_ALSO_ADDRESS] : [];
  const publisher = new testing.VideoTestPublisher({ ownAddresses });
  const subscribers = new Map();
  const audioClients = new Map();
  let window;
  const record = (subscriberId) => (received) => {
    const meta = testing.readSyntheticVp8(received.packet.payload);
    if (
      window === undefined ||
      meta === undefined ||
      meta.sentAtMs < window.from ||
      meta.sentAtMs > window.to
    )
      return;
    window.received.set(subscriberId, (window.received.get(subscriberId) ?? 0) + 1);
    window.latencies.push(received.receivedAtMs - meta.sentAtMs);
  };
  publisher.onFrame = (sentAtMs, packets) => {
    if (window !== undefined && sentAtMs >= window.from && sentAtMs <= window.to) window.sent += packets;
  };
  const watchConnected = (id, peer) => {
    const check = () => {
      if (peer.connectionState === 'connected') {
        send({ type: 'connected', id });
        return true;
      }
      return false;
    };
    if (check()) return;
    const { unSubscribe } = peer.connectionStateChange.subscribe(() => {
      if (check()) unSubscribe();
    });
  };

  // Pre-encoded tones (48 kHz Opus, 1 s looped), sent by one drift-free clock for every speaker.
  // Like browsers, the clients state each frame's level (RFC 6464) where the server negotiates it;
  // BENCH_SFU_AUDIO_LEVELS=0 leaves it out.
  const tones = [];
  const toneFor = (index) => {
    const frequency = 300 + 150 * (index % 8);
    if (tones[index % 8] === undefined) {
      const encoder = sfuPackage.opusCodec.createEncoder({ sampleRate: 48_000, bitrate: 32_000 });
      tones[index % 8] = Array.from({ length: 50 }, (_, frame) => {
        const pcm = testing.sine(960, frequency, 48_000, 6_000, frame * 960);
        return { payload: Buffer.from(encoder.encode(pcm)), level: Buffer.from([levelOf(pcm)]) };
      });
    }
    return tones[index % 8];
  };
  const statesLevels = process.env.BENCH_SFU_AUDIO_LEVELS !== '0';
  const audioLevelUri = 'urn:ietf:params:rtp-hdrext:ssrc-audio-level';
  let audioFrame = 0;
  let audioTimer;
  const startSpeaking = () => {
    let nextAtMs = performance.now();
    const tick = () => {
      while (performance.now() >= nextAtMs) {
        for (const client of audioClients.values()) {
          if (!client.speaking) continue;
          const header = new RtpHeader({
            payloadType: 111,
            sequenceNumber: audioFrame % 0x1_0000,
            timestamp: (audioFrame * 960) % 0x1_0000_0000,
            marker: audioFrame === 0,
          });
          const tone = client.tone[audioFrame % client.tone.length];
          if (client.levelId !== undefined) header.extensions = [{ id: client.levelId, payload: tone.level }];
          client.track.writeRtp(new RtpPacket(header, tone.payload));
        }
        audioFrame += 1;
        nextAtMs += 20;
      }
      audioTimer = setTimeout(tick, Math.max(0, nextAtMs - performance.now()));
    };
    tick();
  };

  process.on('message', async (message) => {
    if (message.type === 'publish') send({ type: 'offer', sdp: await publisher.createOffer() });
    if (message.type === 'answer') {
      await publisher.acceptAnswer(message.sdp);
      try {
        await testing.waitFor(() => publisher.peer.connectionState === 'connected', 'the publisher', 60_000);
      } catch {
        send({ type: 'publishing', failed: publisher.peer.connectionState });
        return;
      }
      publisher.start({ bitrate, framesPerSecond: 30, keyframeInterval: 300 });
      send({ type: 'publishing' });
    }
    if (message.type === 'subscribe') {
      const subscriber = new testing.VideoTestSubscriber({ ownAddresses });
      subscriber.keepPackets = false;
      subscriber.onPacket = record(message.id);
      subscribers.set(message.id, subscriber);
      watchConnected(message.id, subscriber.peer);
      send({ type: 'subscribed', id: message.id, sdp: await subscriber.answer(message.sdp) });
    }
    if (message.type === 'audio-offer') {
      const peer = testing.createLoopbackPeer('audio', 96, {
        ownAddresses,
        headerExtensions: statesLevels ? [useAudioLevelIndication()] : [],
      });
      const track = new MediaStreamTrack({ kind: 'audio' });
      peer.addTransceiver(track, { direction: 'sendrecv' });
      const client = { peer, track, speaking: message.speaking, tone: toneFor(message.id), received: 0 };
      peer.onTrack.subscribe((remote) => remote.onReceiveRtp.subscribe(() => (client.received += 1)));
      audioClients.set(message.id, client);
      watchConnected(message.id, peer);
      send({ type: 'audio-offered', id: message.id, sdp: await testing.localSdp(peer, 'offer') });
    }
    if (message.type === 'audio-answer') {
      const client = audioClients.get(message.id);
      await client.peer.setRemoteDescription({ type: 'answer', sdp: message.sdp });
      // The id both sides agreed on for the level, if the server negotiated it.
      client.levelId = client.peer
        .getTransceivers()[0]
        ?.headerExtensions.find((extension) => extension.uri === audioLevelUri)?.id;
      send({ type: 'audio-answered', id: message.id });
    }
    if (message.type === 'speak') {
      startSpeaking();
      send({ type: 'speaking' });
    }
    if (message.type === 'states') {
      const states = {};
      for (const subscriber of subscribers.values()) {
        const key = `${subscriber.peer.connectionState}/${subscriber.peer.iceConnectionState}`;
        states[key] = (states[key] ?? 0) + 1;
      }
      send({ type: 'states', states: { publisher: publisher.peer.connectionState, ...states } });
    }
    if (message.type === 'audio-count') {
      send({ type: 'audio-counted', received: [...audioClients.values()].map((client) => client.received) });
    }
    if (message.type === 'measure') {
      const from = testing.wallClockMs() + 200;
      window = { from, to: from + message.windowMs, sent: 0, received: new Map(), latencies: [] };
      setTimeout(
        () => {
          const received = [...subscribers.keys()].map((id) => window.received.get(id) ?? 0);
          send({
            type: 'measured',
            sent: window.sent,
            received,
            p50: percentile(window.latencies, 0.5),
            p99: percentile(window.latencies, 0.99),
          });
        },
        200 + message.windowMs + 500,
      );
    }
  });
  process.on('disconnect', () => {
    clearTimeout(audioTimer);
    process.exit(0);
  });
  send({ type: 'ready' });
}

// ---------------------------------------------------------------- the two servers
const { Redis } = createRequire(new URL('../packages/server/package.json', import.meta.url))('ioredis');

/**
 * Our media node, talked to as an API node does: each MediaServer call is a command on the node's
 * Redis channel, answered on this process's channel.
 */
async function startOurs(participants, profileDir) {
  const redisUrl = `${process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'}/12`;
  const prefix = `bench-sfu-${randomUUID()}:`;
  const node = await startReferenceServer(
    {
      NODE_ROLES: 'media',
      NODE_ID: 'bench-media',
      CHAT_REDIS_URL: redisUrl,
      CLUSTER_REDIS_PREFIX: prefix,
      MEETING_ICE_HOST_ADDRESSES: '127.0.0.1',
      MEETING_ICE_ONLY_ADDRESSES: '127.0.0.1',
      MEETING_MAX_PARTICIPANTS: String(participants),
      LOG_LEVEL: 'warn',
    },
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  );
  const commands = new Redis(redisUrl);
  const replies = new Redis(redisUrl);
  const waiting = new Map();
  replies.on('message', (_channel, text) => {
    const reply = JSON.parse(text);
    const settle = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (reply.ok) settle?.resolve(reply.value);
    else settle?.reject(new Error(`${reply.code}: ${reply.message}`));
  });
  await replies.subscribe(`${prefix}api-node:bench:media-replies`);
  let nextId = 1;
  const call = (method, ...args) => {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      const routed = { replyTo: 'bench', command: { id, method, args } };
      commands.publish(`${prefix}media-node:bench-media:commands`, JSON.stringify(routed)).catch(reject);
    });
  };
  const meeting = 'bench';
  return {
    name: 'ours',
    pid: node.pid,
    async publish(offer) {
      await call('addParticipant', meeting, 'publisher');
      return call('publish', meeting, 'publisher', 'video', offer);
    },
    async subscribe(id) {
      const subscriber = `subscriber-${id}`;
      await call('addParticipant', meeting, subscriber);
      const offer = await call('updateSubscriptions', meeting, subscriber, {
        subscribe: [{ userId: 'publisher', type: 'video' }],
        unsubscribe: [],
      });
      return {
        offer: offer.sdp,
        accept: (answer) => call('acceptSubscriptionAnswer', meeting, subscriber, answer),
      };
    },
    async joinAudio(id, offer, speaking) {
      const participant = `audio-${id}`;
      await call('addParticipant', 'audio', participant);
      const answer = await call('answerAudioOffer', 'audio', participant, offer);
      if (speaking) await call('setAudioEnabled', 'audio', participant, true);
      return answer;
    },
    async stop() {
      commands.disconnect();
      replies.disconnect();
      await node.stop();
    },
  };
}

/** Janus with one VideoRoom room and one AudioBridge room (16 kHz), over one HTTP session. */
async function startReference() {
  const janus = await startJanus();
  const session = await openJanusSession(janus.url);
  const admin = await session.attach('janus.plugin.videoroom');
  await admin.message({ request: 'create', room: 1, publishers: 1, videocodec: 'vp8', bitrate: 0 });
  const bridge = await session.attach('janus.plugin.audiobridge');
  await bridge.message({ request: 'create', room: 2, sampling_rate: 16_000 });
  let feed;
  return {
    name: 'janus',
    pid: janus.pid,
    address: janus.address,
    async publish(offer) {
      const handle = await session.attach('janus.plugin.videoroom');
      const joined = await handle.message(
        {
          request: 'joinandconfigure',
          room: 1,
          ptype: 'publisher',
          display: 'publisher',
          audio: false,
          video: true,
        },
        { type: 'offer', sdp: offer },
      );
      feed = joined.data.id;
      await handle.endOfCandidates();
      return joined.jsep.sdp;
    },
    async subscribe() {
      const handle = await session.attach('janus.plugin.videoroom');
      const joined = await handle.message({ request: 'join', room: 1, ptype: 'subscriber', feed });
      return {
        offer: joined.jsep.sdp,
        accept: async (answer) => {
          await handle.message({ request: 'start', room: 1 }, { type: 'answer', sdp: answer });
          await handle.endOfCandidates();
        },
      };
    },
    async joinAudio(id, offer, speaking) {
      const handle = await session.attach('janus.plugin.audiobridge');
      const joined = await handle.message(
        { request: 'join', room: 2, display: `audio-${id}`, muted: !speaking },
        { type: 'offer', sdp: offer },
      );
      await handle.endOfCandidates();
      return joined.jsep.sdp;
    },
    async stop() {
      await session.close();
      await janus.stop();
    },
  };
}

// ---------------------------------------------------------------- benchmark process
async function startClients(server) {
  const child = fork(fileURLToPath(import.meta.url), ['--clients'], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_SFU_ALSO_ADDRESS: server.address ?? '' },
  });
  child.setMaxListeners(0);
  await new Promise((resolve) => child.once('message', resolve));
  const connected = new Set();
  const connectedAtMs = new Map();
  child.on('message', (message) => {
    if (message.type !== 'connected') return;
    connected.add(message.id);
    connectedAtMs.set(message.id, performance.now());
  });
  return {
    child,
    connected,
    connectedAtMs,
    request(message, replyType) {
      return new Promise((resolve) => {
        const listener = (reply) => {
          if (reply.type === replyType && (message.id === undefined || reply.id === message.id)) {
            child.off('message', listener);
            resolve(reply);
          }
        };
        child.on('message', listener);
        child.send(message);
      });
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

async function waitUntil(predicate, deadlineMs) {
  const deadline = performance.now() + deadlineMs;
  while (!predicate() && performance.now() < deadline) await sleep(10);
}

async function videoRun(start, subscriberCount) {
  const server = await start(subscriberCount + 1);
  const clients = await startClients(server);
  try {
    const { sdp: publishOffer } = await clients.request({ type: 'publish' }, 'offer');
    const published = await clients.request(
      { type: 'answer', sdp: await server.publish(publishOffer) },
      'publishing',
    );
    if (published.failed !== undefined) {
      console.log(
        `  ${server.name}: the publisher did not connect within 60 s (${published.failed}); run skipped`,
      );
      return {
        server: server.name,
        subscribers: subscriberCount,
        connected: 0,
        setupMs: Number.NaN,
        cores: Number.NaN,
        loss: 1,
        p50: Number.NaN,
        p99: Number.NaN,
      };
    }
    await sleep(500);
    // All N at once, as many participants opening a meeting page together.
    const setupStarted = performance.now();
    const setupStartedMonotonicUs = process.hrtime.bigint() / 1000n;
    const setupCpuBefore = [cpuMillisecondsOf(server.pid), cpuMillisecondsOf(clients.child.pid)];
    const failures = [];
    // When each step of each subscriber's setup ended, in ms from the start, for the phase summary.
    const steps = { offered: [], answered: [], accepted: [] };
    const at = () => performance.now() - setupStarted;
    await Promise.all(
      Array.from({ length: subscriberCount }, async (_, id) => {
        try {
          const { offer, accept } = await server.subscribe(id);
          steps.offered.push(at());
          const reply = await clients.request({ type: 'subscribe', id, sdp: offer }, 'subscribed');
          steps.answered.push(at());
          await accept(reply.sdp);
          steps.accepted.push(at());
        } catch (error) {
          failures.push(error);
        }
      }),
    );
    await waitUntil(() => clients.connected.size >= subscriberCount, connectDeadlineMs);
    const setupMs = performance.now() - setupStarted;
    const [serverSetupCpuMs, clientsSetupCpuMs] = [server.pid, clients.child.pid].map(
      (pid, index) => cpuMillisecondsOf(pid) - setupCpuBefore[index],
    );
    const connectedAt = [...clients.connectedAtMs.values()].map((atMs) => atMs - setupStarted);
    const phase = (name, values) =>
      `${name} ${percentile(values, 0.5).toFixed(0)}/${percentile(values, 1).toFixed(0)}`;
    console.log(
      `  ${server.name}: setup steps done at p50/last ms: ${phase('offer', steps.offered)}, ` +
        `${phase('client answer', steps.answered)}, ${phase('answer applied', steps.accepted)}, ` +
        `${phase('connected', connectedAt)}; CPU during setup: server ${serverSetupCpuMs} ms, clients ${clientsSetupCpuMs} ms`,
    );
    // A CPU profile's timestamps are on the same monotonic clock: this picks the setup out of it.
    if (profiling) {
      console.log(
        `  ${server.name}: setup from ${setupStartedMonotonicUs} to ${process.hrtime.bigint() / 1000n} (monotonic µs)`,
      );
    }
    if (failures.length > 0)
      console.log(`  ${server.name}: ${failures.length} setups failed: ${failures[0].message}`);
    if (clients.connected.size < subscriberCount) {
      const { states } = await clients.request({ type: 'states' }, 'states');
      console.log(
        `  ${server.name}: connection states (subscribers ICE-and-DTLS/ICE) ${JSON.stringify(states)}`,
      );
    }
    // BENCH_SFU_HOLD_S: keep forwarding that long before measuring, printing the connection states
    // every 5 s (how ICE consent expiry under a starved event loop showed, 30 s after it began).
    for (let held = 0; held < Number(process.env.BENCH_SFU_HOLD_S ?? 0); held += 5) {
      await sleep(5_000);
      const { states } = await clients.request({ type: 'states' }, 'states');
      const atS = ((performance.now() - setupStarted) / 1000).toFixed(1);
      console.log(`  ${server.name}: at ${atS} s, states ${JSON.stringify(states)}`);
    }
    await sleep(1_500);
    const cpuBefore = cpuMillisecondsOf(server.pid);
    const wallBefore = performance.now();
    const measured = await clients.request({ type: 'measure', windowMs }, 'measured');
    const windowCpuMs = cpuMillisecondsOf(server.pid) - cpuBefore;
    const cores = windowCpuMs / (performance.now() - wallBefore);
    const expected = measured.sent * subscriberCount;
    const received = measured.received.reduce((sum, count) => sum + count, 0);
    if (received === 0) {
      const { states } = await clients.request({ type: 'states' }, 'states');
      console.log(
        `  ${server.name}: nothing received (${measured.sent} packets sent); states ${JSON.stringify(states)}`,
      );
    }
    return {
      server: server.name,
      subscribers: subscriberCount,
      connected: clients.connected.size,
      setupMs,
      serverSetupCpuMs,
      cores,
      // CPU time per packet a subscriber got: unlike CPU per wall second, it does not move with how
      // many packets a starved publisher managed to send in the window.
      cpuPerPacketUs: received === 0 ? Number.NaN : (windowCpuMs * 1000) / received,
      loss: expected === 0 ? 1 : Math.max(0, 1 - received / expected),
      // NaN (no packet in the window) crosses the IPC channel as null.
      p50: measured.p50 ?? Number.NaN,
      p99: measured.p99 ?? Number.NaN,
    };
  } finally {
    await clients.stop();
    await server.stop();
  }
}

async function audioRun(start, participants, speakers) {
  const server = await start(participants + 1);
  const clients = await startClients(server);
  try {
    await Promise.all(
      Array.from({ length: participants }, async (_, id) => {
        const speaking = id < speakers;
        const { sdp } = await clients.request({ type: 'audio-offer', id, speaking }, 'audio-offered');
        const answer = await server.joinAudio(id, sdp, speaking);
        await clients.request({ type: 'audio-answer', id, sdp: answer }, 'audio-answered');
      }),
    );
    await waitUntil(() => clients.connected.size >= participants, connectDeadlineMs);
    await clients.request({ type: 'speak' }, 'speaking');
    await sleep(2_000);
    const before = (await clients.request({ type: 'audio-count' }, 'audio-counted')).received;
    const cpuBefore = cpuMillisecondsOf(server.pid);
    const wallBefore = performance.now();
    const windowStartedMonotonicUs = process.hrtime.bigint() / 1000n;
    await sleep(audioWindowMs);
    const after = (await clients.request({ type: 'audio-count' }, 'audio-counted')).received;
    const elapsedMs = performance.now() - wallBefore;
    const cores = (cpuMillisecondsOf(server.pid) - cpuBefore) / elapsedMs;
    // A CPU profile's timestamps are on the same monotonic clock: this picks the window out of it.
    if (profiling && server.name === 'ours') {
      console.log(
        `  ours, ${participants} participants, ${speakers} speaking: measured from ${windowStartedMonotonicUs} ` +
          `to ${process.hrtime.bigint() / 1000n} (monotonic µs), media node pid ${server.pid}`,
      );
    }
    const rates = after.map((count, index) => ((count - before[index]) * 1_000) / elapsedMs);
    return {
      server: server.name,
      participants,
      speakers,
      connected: clients.connected.size,
      share: cores / participants,
      packetsPerSecond: rates.reduce((sum, rate) => sum + rate, 0) / rates.length,
      slowest: Math.min(...rates),
    };
  } finally {
    await clients.stop();
    await server.stop();
  }
}

function formatVideo(row) {
  return (
    `${row.server.padEnd(5)} N=${String(row.subscribers).padStart(3)}: connected ${row.connected}/${row.subscribers}, ` +
    `setup ${(row.setupMs / 1000).toFixed(2)} s, CPU ${(row.cores * 100).toFixed(1)}% of a core ` +
    `(${(row.subscribers / row.cores).toFixed(0)} streams per core, ${row.cpuPerPacketUs.toFixed(1)} µs per delivered packet), ` +
    `loss ${(row.loss * 100).toFixed(2)}%, ` +
    `latency p50 ${row.p50?.toFixed(1)} ms p99 ${row.p99?.toFixed(1)} ms`
  );
}

function perAddedStream(rows) {
  const sorted = [...rows].sort((a, b) => a.subscribers - b.subscribers);
  const first = sorted[0];
  const last = sorted.at(-1);
  if (first === last || last.cores <= first.cores) return Number.NaN;
  return (last.subscribers - first.subscribers) / (last.cores - first.cores);
}

const ratio = (ours, reference) =>
  Number.isFinite(ours / reference) ? (ours / reference).toFixed(2) : 'n/a';

if (process.argv.includes('--clients')) {
  await clientProcess();
} else {
  const mode = process.argv[2] === 'full' ? 'full' : 'quick';
  const rounds = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.split('=')[1] ?? 2);
  const profileDir = process.argv.find((arg) => arg.startsWith('--profile='))?.split('=')[1];
  const counts = process.env.BENCH_SFU_COUNTS
    ? process.env.BENCH_SFU_COUNTS.split(',').map(Number)
    : mode === 'full'
      ? [50, 100, 200]
      : [50, 200];
  const only = process.env.BENCH_SFU_PART; // 'video' or 'audio' to run one part
  const servers = [(participants) => startOurs(participants, profileDir), () => startReference()].filter(
    (_, index) =>
      process.env.BENCH_SFU_SERVER === undefined || process.env.BENCH_SFU_SERVER === ['ours', 'janus'][index],
  );
  console.log(
    `# SFU benchmark (${mode}): ours (media node, Node ${process.versions.node}) against Janus (event_loops = 2), ` +
      `${rounds} alternating rounds, ${windowMs / 1000} s windows`,
  );
  const video = [];
  if (only !== 'audio') {
    for (let round = 1; round <= rounds; round += 1) {
      for (const subscriberCount of counts) {
        // Alternate which side goes first from round to round.
        const order = round % 2 === 1 ? servers : [...servers].reverse();
        for (const start of order) {
          const row = { ...(await videoRun(start, subscriberCount)), round };
          video.push(row);
          console.log(`round ${round} ${formatVideo(row)}`);
        }
      }
    }
    console.log('## video summary');
    for (let round = 1; round <= rounds; round += 1) {
      const ours = perAddedStream(video.filter((row) => row.round === round && row.server === 'ours'));
      const janus = perAddedStream(video.filter((row) => row.round === round && row.server === 'janus'));
      console.log(
        `round ${round}: streams per core per added stream (N ${counts[0]} -> ${counts.at(-1)}): ours ${ours.toFixed(0)}, ` +
          `Janus ${janus.toFixed(0)}, ratio ${ratio(ours, janus)} (target >= 1)`,
      );
    }
    for (const subscriberCount of counts) {
      const of = (server) =>
        video.filter((row) => row.subscribers === subscriberCount && row.server === server);
      const median = (rows, key) =>
        percentile(
          rows.map((row) => row[key]),
          0.5,
        );
      const [ours, janus] = [of('ours'), of('janus')];
      console.log(
        `N=${subscriberCount}: setup ours ${median(ours, 'setupMs').toFixed(0)} ms / Janus ${median(janus, 'setupMs').toFixed(0)} ms ` +
          `(ratio ${ratio(median(ours, 'setupMs'), median(janus, 'setupMs'))}, target <= 1); connected ours ` +
          `${ours.map((row) => row.connected).join(',')} / Janus ${janus.map((row) => row.connected).join(',')} of ${subscriberCount}; ` +
          `CPU ours/Janus ${ratio(median(ours, 'cores'), median(janus, 'cores'))}; ` +
          `CPU per delivered packet ours ${median(ours, 'cpuPerPacketUs').toFixed(1)} µs / Janus ${median(janus, 'cpuPerPacketUs').toFixed(1)} µs ` +
          `(ratio ${ratio(median(ours, 'cpuPerPacketUs'), median(janus, 'cpuPerPacketUs'))}); p50 ${median(ours, 'p50').toFixed(1)}/${median(janus, 'p50').toFixed(1)} ms, ` +
          `p99 ${median(ours, 'p99').toFixed(1)}/${median(janus, 'p99').toFixed(1)} ms`,
      );
    }
  }
  if (only !== 'video') {
    console.log('## audio mix: % of a core per participant, packets a second received per participant');
    // BENCH_SFU_AUDIO=10x10,30x2 runs only those cases (participants x speakers).
    const audioCases = process.env.BENCH_SFU_AUDIO
      ? process.env.BENCH_SFU_AUDIO.split(',').map((pair) => pair.split('x').map(Number))
      : [
          [10, 10],
          [10, 2],
          [30, 30],
          [30, 2],
        ];
    for (const [participants, speakers] of audioCases) {
      const results = [];
      for (const start of servers) results.push(await audioRun(start, participants, speakers));
      const [ours, janus] =
        process.env.BENCH_SFU_SERVER === 'janus' ? [undefined, results[0]] : [results[0], results[1]];
      const line = (result) =>
        result === undefined
          ? 'not run'
          : `${(result.share * 100).toFixed(2)}% (${result.packetsPerSecond.toFixed(1)} pkt/s, slowest ${result.slowest.toFixed(1)}, connected ${result.connected})`;
      console.log(
        `${participants} participants, ${speakers === participants ? 'all' : speakers} speaking: ours ${line(ours)}, ` +
          `AudioBridge ${line(janus)}; CPU ratio ${ratio(ours?.share, janus?.share)} (target <= 1)`,
      );
    }
  }
  process.exit(0);
}
