// Image preview benchmark (run `pnpm build` first; `pnpm bench -- preview-images`).
// 1. Thumbnails per second through the real HTTP server (12 MP JPEG upload -> 256x256 jpeg, 8 in
//    flight) divided by in-process sharp doing the same resize at the same concurrency. Target >= 0.8.
//    Also, in the same alternating rounds, the HTTP floor: bare node:http receiving the same upload
//    and answering the same raw sharp thumbnail (no framework, no checks), to show how much of the
//    gap is any HTTP upload's and how much is ours.
// 2. The same upload sent by a client that costs something, as browsers and most Node code do:
//    `fetch` with a new `FormData` per request, 8 in flight, to the server and to the HTTP floor in
//    alternating rounds. Target: server / floor >= 0.9 at the default limits.
// 3. Peak RSS (VmHWM) of a fresh server process, default limits, while 16 uploads of 50 MP JPEGs are
//    in flight: first as 256x256 thumbnails, then as 1920x1080 previews. Target < 1 GiB.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBareUploadServer } from './lib/bare-upload-server.mjs';
import { createMultipartClient, multipartBody } from './lib/multipart-client.mjs';
import { cpuMillisecondsOf, startListeningProcess, startReferenceServer } from './lib/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sharp = createRequire(path.join(root, 'packages/preview-core/package.json'))('sharp');
const IN_FLIGHT = 8;
const ROUNDS = 4;
const PER_ROUND = 60;
const WARM_UP = 16;
const QUALITY = 50; // the API's default quality (medium)

/** A photo-like JPEG: smooth random texture (noise scaled up), q90. */
async function photoJpeg(width, height) {
  const seed = await sharp({
    create: {
      width: 320,
      height: 240,
      channels: 3,
      background: '#777',
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .png()
    .toBuffer();
  return sharp(seed).resize(width, height, { kernel: 'cubic' }).jpeg({ quality: 90 }).toBuffer();
}

const cpuMilliseconds = (usage) => (usage.user + usage.system) / 1000;

/** Runs `task` `total` times with `inFlight` at once; returns tasks per second. */
async function throughput(total, inFlight, task) {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      next += 1;
      await task();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return total / ((performance.now() - started) / 1000);
}

function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { peakMiB: kib('VmHWM') / 1024, currentMiB: kib('VmRSS') / 1024 };
}

const client = createMultipartClient({ maxSockets: 32 });
const post = client.post;

async function measureThroughput() {
  const photo = await photoJpeg(4000, 3000);
  const body = multipartBody(photo, { fileName: 'photo.jpg', contentType: 'image/jpeg' });
  console.log(`12 MP JPEG: 4000x3000, ${(photo.length / 1024 / 1024).toFixed(1)} MiB`);
  sharp.cache(false);
  const direct = () => rawThumbnail(photo);
  const server = await startReferenceServer();
  const floor = await startListeningProcess([fileURLToPath(import.meta.url), '--bare-thumbnail-server']);
  try {
    const url = `${server.url}/preview/image/256x256/thumbnail/`;
    const check = await sharp(await post(url, body)).metadata();
    if (check.format !== 'jpeg' || check.width !== 256 || check.height !== 256)
      throw new Error('unexpected output');
    const viaServer = () => post(url, body);
    const viaFloor = () => post(`${floor.url}/`, body);
    await throughput(WARM_UP, IN_FLIGHT, direct);
    await throughput(WARM_UP, IN_FLIGHT, viaServer);
    await throughput(WARM_UP, IN_FLIGHT, viaFloor);
    // Alternate short rounds so load from other processes on the machine hits both sides alike.
    const ratios = [];
    const floorRatios = [];
    let directTotal = 0;
    let serverTotal = 0;
    let floorTotal = 0;
    const cpu = { direct: 0, server: 0, client: 0, floor: 0 };
    for (let round = 0; round < ROUNDS; round += 1) {
      let own = process.cpuUsage();
      const reference = await throughput(PER_ROUND, IN_FLIGHT, direct);
      cpu.direct += cpuMilliseconds(process.cpuUsage(own));
      own = process.cpuUsage();
      const serverBefore = cpuMillisecondsOf(server.pid);
      const measured = await throughput(PER_ROUND, IN_FLIGHT, viaServer);
      cpu.server += cpuMillisecondsOf(server.pid) - serverBefore;
      cpu.client += cpuMilliseconds(process.cpuUsage(own));
      const floorBefore = cpuMillisecondsOf(floor.pid);
      const bare = await throughput(PER_ROUND, IN_FLIGHT, viaFloor);
      cpu.floor += cpuMillisecondsOf(floor.pid) - floorBefore;
      directTotal += reference;
      serverTotal += measured;
      floorTotal += bare;
      ratios.push(measured / reference);
      floorRatios.push(bare / reference);
    }
    const perThumbnail = (milliseconds) => (milliseconds / (ROUNDS * PER_ROUND)).toFixed(1);
    const medianOf = (values) => {
      const sorted = [...values].sort((a, b) => a - b);
      return (sorted[(ROUNDS - 1) >> 1] + sorted[ROUNDS >> 1]) / 2;
    };
    const median = medianOf(ratios);
    console.log(
      `in-process sharp, ${IN_FLIGHT} in flight: ${(directTotal / ROUNDS).toFixed(1)} thumbnails/s`,
    );
    console.log(
      `HTTP server upload, ${IN_FLIGHT} in flight: ${(serverTotal / ROUNDS).toFixed(1)} thumbnails/s`,
    );
    console.log(
      `ratio server / sharp: ${median.toFixed(2)} (median of ${ROUNDS} alternating rounds: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; target >= 0.80)`,
    );
    console.log(
      `CPU per thumbnail: sharp ${perThumbnail(cpu.direct)} ms; server ${perThumbnail(cpu.server)} ms + benchmark client ${perThumbnail(cpu.client)} ms; sharp / (server + client) ${(cpu.direct / (cpu.server + cpu.client)).toFixed(2)} (the throughput ratio when every core is busy, whatever else runs on the machine)`,
    );
    console.log(
      `HTTP floor (bare node:http + raw sharp), ${IN_FLIGHT} in flight: ${(floorTotal / ROUNDS).toFixed(1)} thumbnails/s; floor / sharp ${medianOf(floorRatios).toFixed(2)} (rounds: ${floorRatios.map((ratio) => ratio.toFixed(2)).join(', ')}); server / floor ${(serverTotal / floorTotal).toFixed(2)}; floor CPU per thumbnail ${perThumbnail(cpu.floor)} ms`,
    );
  } finally {
    await server.stop();
    await floor.stop();
  }
}

/** POSTs `photo` the way a browser or ordinary Node code does: `fetch` with a new FormData. */
async function fetchPost(url, photo) {
  const form = new FormData();
  form.append('file', new Blob([photo], { type: 'image/jpeg' }), 'photo.jpg');
  const response = await fetch(url, { method: 'POST', body: form });
  const data = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200)
    throw new Error(`HTTP ${response.status}: ${data.toString('utf8').slice(0, 200)}`);
  return data;
}

async function measureFetchClient(serverEnv = {}) {
  const photo = await photoJpeg(4000, 3000);
  const server = await startReferenceServer(serverEnv);
  const floor = await startListeningProcess([fileURLToPath(import.meta.url), '--bare-thumbnail-server']);
  try {
    const viaServer = () => fetchPost(`${server.url}/preview/image/256x256/thumbnail/`, photo);
    const viaFloor = () => fetchPost(`${floor.url}/`, photo);
    await throughput(WARM_UP, IN_FLIGHT, viaServer);
    await throughput(WARM_UP, IN_FLIGHT, viaFloor);
    const ratios = [];
    const totals = { server: 0, floor: 0 };
    const cpu = { server: 0, floor: 0, clientToServer: 0, clientToFloor: 0 };
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternate which side goes first, so a slow spell on the machine hits both alike.
      const sides = [
        ['server', server.pid, viaServer, 'clientToServer'],
        ['floor', floor.pid, viaFloor, 'clientToFloor'],
      ];
      if (round % 2 === 1) sides.reverse();
      const rates = {};
      for (const [name, pid, task, clientKey] of sides) {
        const own = process.cpuUsage();
        const before = cpuMillisecondsOf(pid);
        rates[name] = await throughput(PER_ROUND, IN_FLIGHT, task);
        cpu[name] += cpuMillisecondsOf(pid) - before;
        cpu[clientKey] += cpuMilliseconds(process.cpuUsage(own));
        totals[name] += rates[name];
      }
      ratios.push(rates.server / rates.floor);
    }
    const perThumbnail = (milliseconds) => (milliseconds / (ROUNDS * PER_ROUND)).toFixed(1);
    const sorted = [...ratios].sort((a, b) => a - b);
    const median = (sorted[(ROUNDS - 1) >> 1] + sorted[ROUNDS >> 1]) / 2;
    const settings = Object.keys(serverEnv).length === 0 ? 'default limits' : JSON.stringify(serverEnv);
    console.log(`\nfetch + FormData client, ${IN_FLIGHT} in flight, server at ${settings}:`);
    console.log(
      `server ${(totals.server / ROUNDS).toFixed(1)} thumbnails/s, HTTP floor ${(totals.floor / ROUNDS).toFixed(1)} thumbnails/s; server / floor ${median.toFixed(2)} (median of ${ROUNDS} alternating rounds: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; target >= 0.90)`,
    );
    console.log(
      `CPU per thumbnail: server ${perThumbnail(cpu.server)} ms, floor ${perThumbnail(cpu.floor)} ms; fetch client ${perThumbnail(cpu.clientToServer)} ms (to the server), ${perThumbnail(cpu.clientToFloor)} ms (to the floor)`,
    );
  } finally {
    await server.stop();
    await floor.stop();
  }
}

async function measureMemory() {
  const width = 8660;
  const height = 5774;
  const photo = await photoJpeg(width, height);
  const body = multipartBody(photo, { fileName: 'photo.jpg', contentType: 'image/jpeg' });
  console.log(
    `\n50 MP JPEG: ${width}x${height} (${((width * height) / 1e6).toFixed(1)} MP), ${(photo.length / 1024 / 1024).toFixed(1)} MiB`,
  );
  const server = await startReferenceServer();
  try {
    const idle = memoryOf(server.pid);
    console.log(`server RSS at start: ${idle.currentMiB.toFixed(0)} MiB`);
    for (const [label, route] of [
      ['16 thumbnails 256x256', '/preview/image/256x256/thumbnail/'],
      ['16 previews 1920x1080', '/preview/image/1920x1080/?output_format=jpeg'],
    ]) {
      const started = performance.now();
      await Promise.all(Array.from({ length: 16 }, () => post(`${server.url}${route}`, body)));
      const seconds = (performance.now() - started) / 1000;
      const memory = memoryOf(server.pid);
      console.log(
        `${label} of 50 MP uploads, all in flight at once: ${seconds.toFixed(1)} s; server peak RSS so far ${memory.peakMiB.toFixed(0)} MiB (target < 1024)`,
      );
    }
  } finally {
    await server.stop();
  }
}

/** 256x256 jpeg thumbnail by sharp alone: the reference, also answered by the floor server. */
function rawThumbnail(photo) {
  return sharp(photo).autoOrient().resize(256, 256, { fit: 'cover' }).jpeg({ quality: QUALITY }).toBuffer();
}

if (process.argv[2] === '--bare-thumbnail-server') {
  sharp.cache(false);
  runBareUploadServer(rawThumbnail, 'image/jpeg');
} else {
  // `node bench/preview-images.mjs fetch` runs only the fetch-client part.
  const only = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
  if (only.length === 0 && process.argv.some((arg) => arg.startsWith('--server-env='))) only.push('none');
  const wanted = (part) => only.length === 0 || only.includes(part);
  if (wanted('throughput')) await measureThroughput();
  if (wanted('fetch')) await measureFetchClient();
  // `--server-env=NAME=value` (repeatable) measures the fetch client against a server so configured.
  const serverEnv = Object.fromEntries(
    process.argv
      .filter((arg) => arg.startsWith('--server-env='))
      .map((arg) => arg.slice('--server-env='.length).split(/=(.*)/s).slice(0, 2)),
  );
  if (Object.keys(serverEnv).length > 0) await measureFetchClient(serverEnv);
  if (wanted('memory')) await measureMemory();
  client.close();
}
