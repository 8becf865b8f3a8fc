// Simulcast benchmark: the CPU of forwarding a three-layer simulcast publisher (synthetic VP8,
// 150 kbit/s, 500 kbit/s and 1.2 Mbit/s) to N werift subscribers of mixed bandwidth estimates (a
// third report a REMB of 300 kbit/s and get the low layer, a third 900 kbit/s and get the middle
// one, a third report nothing and get the high one), against a reference taken in the same run:
// the same N subscribers of one ~1 Mbit/s publisher without simulcast. The SFU runs in this
// process (its CPU is this process's); the clients run in a child process. Build first:
//   pnpm build && node bench/sfu-simulcast.mjs [subscribers]
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dist = new URL('../packages/webrtc-sfu/dist/', import.meta.url);
const sfuPackage = await import(new URL('index.js', dist).href);
const testing = await import(new URL('testing.js', dist).href);
const windowMs = 5_000;
const estimates = [300_000, 900_000, undefined];
const simulcastLayers = [
  { rid: 'l', bitrate: 150_000 },
  { rid: 'm', bitrate: 500_000 },
  { rid: 'h', bitrate: 1_200_000 },
];

// ---------------------------------------------------------------- client process
async function clientProcess() {
  let publisher;
  const subscribers = new Map();
  const send = (message) => process.send(message);
  let rembTimer;
  process.on('message', async (message) => {
    if (message.type === 'publish') {
      publisher = message.simulcast
        ? new testing.SimulcastTestPublisher(simulcastLayers)
        : new testing.VideoTestPublisher();
      send({ type: 'offer', sdp: await publisher.createOffer() });
    }
    if (message.type === 'answer') {
      await publisher.acceptAnswer(message.sdp);
      if (publisher instanceof testing.SimulcastTestPublisher) publisher.start({ keyframeInterval: 300 });
      else publisher.start({ bitrate: 1_000_000, framesPerSecond: 30, keyframeInterval: 300 });
      send({ type: 'publishing' });
    }
    if (message.type === 'subscribe') {
      const subscriber = new testing.VideoTestSubscriber();
      subscriber.keepPackets = false;
      const entry = { subscriber, remb: message.remb, packets: 0, bytes: 0, layers: [0, 0, 0], ssrcs: [] };
      subscriber.onPacket = (received) => {
        entry.packets += 1;
        entry.bytes += received.packet.payload.length + 12;
        if (entry.ssrcs.length === 0) entry.ssrcs.push(received.packet.header.ssrc);
        const frame = testing.readSyntheticVp8(received.packet.payload);
        if (frame !== undefined) entry.layers[Math.floor(frame.frameNumber / testing.layerFrameBase)] += 1;
      };
      subscribers.set(message.id, entry);
      send({ type: 'subscribed', id: message.id, sdp: await subscriber.answer(message.sdp) });
    }
    if (message.type === 'start-remb') {
      rembTimer = setInterval(() => {
        for (const entry of subscribers.values()) {
          if (entry.remb === undefined || entry.packets === 0) continue;
          // sendRemb names the SSRCs received so far; keep one so the list stays short.
          entry.subscriber.packets.length = 0;
          entry.subscriber.packets.push({ packet: { header: { ssrc: entry.ssrcs[0] } } });
          entry.subscriber.sendRemb(entry.remb).catch(() => {});
        }
      }, 500);
    }
    if (message.type === 'counts') {
      send({
        type: 'counts',
        counts: [...subscribers.values()].map((entry) => ({
          packets: entry.packets,
          bytes: entry.bytes,
          layers: [...entry.layers],
        })),
      });
    }
    if (message.type === 'close') {
      clearInterval(rembTimer);
      await Promise.allSettled([
        publisher?.close(),
        ...[...subscribers.values()].map((e) => e.subscriber.close()),
      ]);
      process.exit(0);
    }
  });
  send({ type: 'ready' });
}

// ---------------------------------------------------------------- SFU process
function request(child, message, replyType, match = () => true) {
  return new Promise((resolve) => {
    const listener = (reply) => {
      if (reply.type === replyType && match(reply)) {
        child.off('message', listener);
        resolve(reply);
      }
    };
    child.on('message', listener);
    if (message !== undefined) child.send(message);
  });
}

async function scenario(simulcast, subscriberCount) {
  const sfu = sfuPackage.createSfu({
    ...testing.loopbackSfuOptions,
    limits: { subscriptionsPerSession: 10, sessionsPerRouter: subscriberCount + 5 },
  });
  const router = sfu.createRouter('bench');
  const child = fork(fileURLToPath(import.meta.url), ['client'], { stdio: 'inherit' });
  await request(child, undefined, 'ready');
  const publisherSession = router.createSession('publisher');
  const offer = await request(child, { type: 'publish', simulcast }, 'offer');
  const answer = await publisherSession.publish('video', offer.sdp);
  await request(child, { type: 'answer', sdp: answer }, 'publishing');
  const producer = router.getProducer('publisher', 'video');
  const expectedLayers = simulcast ? 3 : 1;
  await testing.waitFor(() => producer.activeLayers().length === expectedLayers, 'layers', 30_000);
  for (let index = 0; index < subscriberCount; index += 1) {
    const session = router.createSession(`subscriber-${index}`);
    const subscription = await session.updateSubscriptions({
      subscribe: [{ participantId: 'publisher', kind: 'video' }],
      unsubscribe: [],
    });
    const remb = simulcast ? estimates[index % estimates.length] : undefined;
    const reply = await request(
      child,
      { type: 'subscribe', id: index, sdp: subscription.sdp, remb },
      'subscribed',
      (m) => m.id === index,
    );
    await session.acceptSubscriptionAnswer(reply.sdp);
  }
  child.send({ type: 'start-remb' });
  const counts = async () => (await request(child, { type: 'counts' }, 'counts')).counts;
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    const now = await counts();
    if (process.env.BENCH_DEBUG) console.log('packets', now.map((entry) => entry.packets).join(' '));
    if (now.every((entry) => entry.packets > 100)) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // Let the allocation settle on each subscriber's layer before measuring.
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  const before = await counts();
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const cpu = process.cpuUsage(cpuBefore);
  const elapsedMs = performance.now() - startedAt;
  const after = await counts();
  const connected = after.filter((entry, index) => entry.packets > (before[index]?.packets ?? 0)).length;
  const packets = after.reduce((sum, entry, index) => sum + entry.packets - (before[index]?.packets ?? 0), 0);
  const bytes = after.reduce((sum, entry, index) => sum + entry.bytes - (before[index]?.bytes ?? 0), 0);
  const layers = [0, 1, 2].map(
    (layer) =>
      after.filter((entry, index) => {
        const delta = entry.layers.map((count, position) => count - (before[index]?.layers[position] ?? 0));
        return delta.indexOf(Math.max(...delta)) === layer;
      }).length,
  );
  const cores = (cpu.user + cpu.system) / 1000 / elapsedMs;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send({ type: 'close' });
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  child.kill();
  sfu.close();
  return {
    cores,
    connected,
    packetsPerSecond: (packets * 1000) / elapsedMs,
    megabitsPerSecond: (bytes * 8) / elapsedMs / 1000,
    layers,
  };
}

if (process.argv[2] === 'client') {
  await clientProcess();
} else {
  const subscriberCount = Number(process.argv[2] ?? 30);
  const single = await scenario(false, subscriberCount);
  const layered = await scenario(true, subscriberCount);
  const perPacket = (result) => (result.cores * 1e6) / result.packetsPerSecond;
  console.log(`subscribers: ${subscriberCount}, window ${windowMs / 1000} s`);
  for (const [name, result] of [
    ['reference, one 1 Mbit/s layer', single],
    ['simulcast, 3 layers, mixed estimates', layered],
  ]) {
    console.log(
      `${name}: ${result.cores.toFixed(3)} cores, ${result.connected}/${subscriberCount} receiving, ` +
        `${result.packetsPerSecond.toFixed(0)} packets/s and ${result.megabitsPerSecond.toFixed(1)} Mbit/s forwarded, ` +
        `${perPacket(result).toFixed(1)} µs CPU per forwarded packet` +
        (result === layered ? `, subscribers on low/medium/high: ${result.layers.join('/')}` : ''),
    );
  }
  console.log(
    `CPU per forwarded packet, simulcast / reference: ${(perPacket(layered) / perPacket(single)).toFixed(2)}`,
  );
  console.log(`CPU, simulcast / reference: ${(layered.cores / single.cores).toFixed(2)}`);
}
