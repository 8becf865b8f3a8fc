// SFU benchmark: forwarded VP8 streams per CPU core at < 1% loss, added forwarding latency, and the
// CPU cost of the audio mix per participant. The SFU runs as a deployment runs it: in a media node
// process (NODE_ROLES=media) driven over Redis, and its CPU is the whole process's (SFU, Redis client,
// heartbeats). One ~1 Mbit/s synthetic VP8 publisher and N werift subscribers run in a child
// process. Needs the local Redis. Build first:
//   pnpm build && node bench/sfu.mjs [maxSubscribers]
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cpuMillisecondsOf, startReferenceServer } from './lib/processes.mjs';

const dist = new URL('../packages/webrtc-sfu/dist/', import.meta.url);
const sfuPackage = await import(new URL('index.js', dist).href);
const testing = await import(new URL('testing.js', dist).href);
const windowMs = 3_000;
const bitrate = 1_000_000;

function percentile(values, fraction) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

// ---------------------------------------------------------------- client process
async function clientProcess() {
  const publisher = new testing.VideoTestPublisher();
  const subscribers = new Map();
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
  const send = (message) => process.send(message);
  publisher.onFrame = (sentAtMs, packets) => {
    if (window !== undefined && sentAtMs >= window.from && sentAtMs <= window.to) window.sent += packets;
  };
  process.on('message', async (message) => {
    if (message.type === 'publish') send({ type: 'offer', sdp: await publisher.createOffer() });
    if (message.type === 'answer') {
      await publisher.acceptAnswer(message.sdp);
      publisher.start({ bitrate, framesPerSecond: 30, keyframeInterval: 300 });
      send({ type: 'publishing' });
    }
    if (message.type === 'subscribe') {
      const subscriber = new testing.VideoTestSubscriber();
      subscriber.keepPackets = false;
      subscriber.onPacket = record(message.id);
      subscribers.set(message.id, subscriber);
      send({ type: 'subscribed', id: message.id, sdp: await subscriber.answer(message.sdp) });
    }
    if (message.type === 'direct') send({ type: 'direct', ...(await measureDirect()) });
    if (message.type === 'measure') {
      const from = testing.wallClockMs() + 200;
      window = { from, to: from + message.windowMs, sent: 0, received: new Map(), latencies: [] };
      const before = { cpu: process.cpuUsage(), wall: performance.now() };
      setTimeout(() => Object.assign(before, { cpu: process.cpuUsage(), wall: performance.now() }), 200);
      setTimeout(() => {
        const cpu = process.cpuUsage(before.cpu);
        const clientCores = (cpu.user + cpu.system) / 1_000 / (performance.now() - before.wall);
        setTimeout(() => {
          const received = [...subscribers.keys()].map((id) => window.received.get(id) ?? 0);
          send({
            type: 'measured',
            sent: window.sent,
            received,
            clientCores,
            p50: percentile(window.latencies, 0.5),
            p99: percentile(window.latencies, 0.99),
          });
        }, 500);
      }, 200 + message.windowMs);
    }
    if (message.type === 'exit') {
      await Promise.all([
        publisher.close(),
        ...[...subscribers.values()].map((subscriber) => subscriber.close()),
      ]);
      process.exit(0);
    }
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready' });
}

async function measureDirect() {
  const publisher = new testing.VideoTestPublisher();
  const subscriber = new testing.VideoTestSubscriber();
  subscriber.keepPackets = false;
  const latencies = [];
  subscriber.onPacket = (received) => {
    const meta = testing.readSyntheticVp8(received.packet.payload);
    if (meta !== undefined) latencies.push(received.receivedAtMs - meta.sentAtMs);
  };
  await publisher.acceptAnswer(await subscriber.answer(await publisher.createOffer()));
  await testing.waitFor(() => subscriber.peer.connectionState === 'connected', 'direct connection');
  publisher.start({ bitrate, framesPerSecond: 30 });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  publisher.stop();
  await Promise.all([publisher.close(), subscriber.close()]);
  return { p50: percentile(latencies.slice(100), 0.5), p99: percentile(latencies.slice(100), 0.99) };
}

// ---------------------------------------------------------------- media node
const { Redis } = createRequire(new URL('../packages/server/package.json', import.meta.url))('ioredis');

/**
 * Starts a media node and talks to it as an API node does: each MediaServer call is a command on the
 * node's Redis channel, answered on this process's channel.
 */
async function startMediaNode(participants) {
  const redisUrl = `${process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'}/12`;
  const prefix = `bench-sfu-${randomUUID()}:`;
  const node = await startReferenceServer({
    NODE_ROLES: 'media',
    NODE_ID: 'bench-media',
    CHAT_REDIS_URL: redisUrl,
    CLUSTER_REDIS_PREFIX: prefix,
    MEETING_ICE_HOST_ADDRESSES: '127.0.0.1',
    MEETING_ICE_ONLY_ADDRESSES: '127.0.0.1',
    MEETING_MAX_PARTICIPANTS: String(participants),
    LOG_LEVEL: 'warn',
  });
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
  return {
    pid: node.pid,
    call(method, ...args) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        const routed = { replyTo: 'bench', command: { id, method, args } };
        commands.publish(`${prefix}media-node:bench-media:commands`, JSON.stringify(routed)).catch(reject);
      });
    },
    async stop() {
      commands.disconnect();
      replies.disconnect();
      await node.stop();
    },
  };
}

// ---------------------------------------------------------------- benchmark process
function request(child, message, replyType) {
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
}

async function videoBench(maxSubscribers) {
  const child = fork(fileURLToPath(import.meta.url), ['--clients'], { stdio: 'inherit' });
  await new Promise((resolve) => child.once('message', resolve));
  process.on('exit', () => child.kill());
  const media = await startMediaNode(maxSubscribers + 1);
  const meeting = 'bench';
  await media.call('addParticipant', meeting, 'publisher');
  const { sdp: publishOffer } = await request(child, { type: 'publish' }, 'offer');
  await request(
    child,
    { type: 'answer', sdp: await media.call('publish', meeting, 'publisher', 'video', publishOffer) },
    'publishing',
  );
  const direct = await request(child, { type: 'direct' }, 'direct');
  console.log(
    `direct werift→werift latency (no SFU): p50 ${direct.p50.toFixed(2)} ms, p99 ${direct.p99.toFixed(2)} ms`,
  );
  const rows = [];
  let subscribed = 0;
  for (const target of [10, 25, 50, 100, 150, 200].filter((count) => count <= maxSubscribers)) {
    // Subscriptions are set up one after the other; neither side asks a STUN server, so this is the
    // SFU's and the clients' own negotiation time.
    const setupStarted = performance.now();
    const setupFrom = subscribed;
    for (; subscribed < target; subscribed += 1) {
      const subscriber = `subscriber-${subscribed}`;
      await media.call('addParticipant', meeting, subscriber);
      const offer = await media.call('updateSubscriptions', meeting, subscriber, {
        subscribe: [{ userId: 'publisher', type: 'video' }],
        unsubscribe: [],
      });
      const reply = await request(child, { type: 'subscribe', id: subscribed, sdp: offer.sdp }, 'subscribed');
      await media.call('acceptSubscriptionAnswer', meeting, subscriber, reply.sdp);
    }
    const setupMs = performance.now() - setupStarted;
    console.log(
      `${String(target).padStart(4)} subscribers: set up ${target - setupFrom} more in ${(setupMs / 1000).toFixed(2)} s ` +
        `(${(setupMs / Math.max(1, target - setupFrom)).toFixed(0)} ms each, offer to answer applied)`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const cpuBefore = cpuMillisecondsOf(media.pid);
    const wallBefore = performance.now();
    const measured = await request(child, { type: 'measure', windowMs }, 'measured');
    const cores = (cpuMillisecondsOf(media.pid) - cpuBefore) / (performance.now() - wallBefore);
    const expected = measured.sent * target;
    const received = measured.received.reduce((sum, count) => sum + count, 0);
    const loss = expected === 0 ? 1 : Math.max(0, 1 - received / expected);
    const row = {
      subscribers: target,
      sfuCores: cores,
      clientCores: measured.clientCores,
      loss,
      p50: measured.p50,
      p99: measured.p99,
      perCore: target / cores,
    };
    rows.push(row);
    console.log(
      `${String(target).padStart(4)} subscribers: media node CPU ${(cores * 100).toFixed(1)}% of a core ` +
        `(client process ${(row.clientCores * 100).toFixed(0)}%), loss ${(loss * 100).toFixed(2)}%, ` +
        `latency p50 ${row.p50.toFixed(2)} ms p99 ${row.p99.toFixed(2)} ms, ${row.perCore.toFixed(0)} streams per core`,
    );
    if (loss >= 0.01 || cores > 0.9) break;
  }
  child.send({ type: 'exit' });
  await media.stop();
  const good = rows.filter((row) => row.loss < 0.01);
  const best = good.at(-1);
  return { direct, rows, best };
}

function audioBench(participants, speakers, seconds) {
  const codec = sfuPackage.opusCodec;
  const ticks = (seconds * 1_000) / sfuPackage.frameMs;
  const packets = [];
  for (let speaker = 0; speaker < speakers; speaker += 1) {
    const encoder = codec.createEncoder({ sampleRate: 48_000, bitrate: 32_000 });
    packets.push(
      Array.from({ length: ticks }, (_, tick) =>
        encoder.encode(testing.sine(960, 300 + 200 * speaker, 48_000, 6_000, tick * 960)),
      ),
    );
  }
  const mixer = new sfuPackage.AudioMixer(
    {
      codec,
      sampleRate: 16_000,
      bitrate: 32_000,
      jitterFrames: 5,
      talking: { startDbov: -50, stopDbov: -58, windowMs: 200, holdMs: 600 },
    },
    () => {},
  );
  let bytes = 0;
  for (let index = 0; index < participants; index += 1) {
    mixer.add(`p${index}`, (payload) => {
      bytes += payload.length;
    });
    mixer.setMuted(`p${index}`, index >= speakers);
  }
  const before = process.cpuUsage();
  for (let tick = 0; tick < ticks; tick += 1) {
    for (let speaker = 0; speaker < speakers; speaker += 1)
      mixer.push(`p${speaker}`, tick + 1, packets[speaker][tick]);
    mixer.tick();
  }
  const cpu = process.cpuUsage(before);
  const cpuMs = (cpu.user + cpu.system) / 1_000;
  return {
    participants,
    speakers,
    share: cpuMs / (seconds * 1_000) / participants,
    encoded: mixer.stats.framesEncoded / ticks,
    kbps: (bytes * 8) / seconds / participants / 1_000,
  };
}

function opusReference() {
  const encoder = sfuPackage.opusCodec.createEncoder({ sampleRate: 16_000, bitrate: 32_000 });
  const decoder = sfuPackage.opusCodec.createDecoder({ sampleRate: 16_000 });
  const frame = testing.sine(320, 440, 16_000, 6_000);
  const before = process.cpuUsage();
  for (let index = 0; index < 500; index += 1) decoder.decode(encoder.encode(frame));
  const cpu = process.cpuUsage(before);
  return (cpu.user + cpu.system) / 1_000 / 500;
}

if (process.argv.includes('--clients')) {
  await clientProcess();
} else {
  const maxSubscribers = Number(process.argv[2] ?? 100);
  console.log(
    `# SFU benchmark (werift ${process.versions.node ? `on Node ${process.versions.node}` : ''}), ${windowMs / 1000} s windows`,
  );
  const video = await videoBench(maxSubscribers);
  if (video.best !== undefined) {
    const calm = video.rows[0];
    console.log(
      `=> forwarded video streams per core at < 1% loss: ${video.best.perCore.toFixed(0)} (at ${video.best.subscribers} subscribers, ` +
        `${(video.best.sfuCores * 100).toFixed(0)}% of a core, extrapolated linearly to one core)`,
    );
    console.log(
      `=> added forwarding latency p99 ≈ ${(calm.p99 - video.direct.p99).toFixed(2)} ms at ${calm.subscribers} subscribers ` +
        `(${calm.p99.toFixed(2)} via SFU vs ${video.direct.p99.toFixed(2)} direct); larger steps add the client process's own queueing`,
    );
  } else {
    console.log('=> loss was >= 1% already at the first step');
  }
  const reference = opusReference();
  console.log(`Opus 16 kHz encode+decode of one 20 ms frame: ${reference.toFixed(3)} ms CPU (reference)`);
  for (const [participants, speakers] of [
    [10, 2],
    [50, 2],
    [50, 10],
  ]) {
    const result = audioBench(participants, speakers, 5);
    console.log(
      `audio mix, ${participants} participants, ${speakers} speaking: ${(result.share * 100).toFixed(3)}% of a core per participant ` +
        `(${result.encoded.toFixed(1)} encodes per frame, ${result.kbps.toFixed(0)} kbit/s of Opus out per participant; ${(result.share / (reference / 20)).toFixed(2)}× one participant's encode+decode)`,
    );
  }
  process.exit(0);
}
