// Isolation benchmark (run `pnpm build` first; `pnpm bench -- isolation`). How long `/health/live/`
// takes to answer, asked every 10 ms, on the reference server:
//   - idle (the reference, measured in the same run),
//   - while 1 costly PDF thumbnail is in flight, then while 4 are (one request replaces each answer),
// The costly PDF is one page of 100,000 wide strokes (about 6 s of mupdf drawing on one core), so
// with PREVIEW_RENDER_TIMEOUT_SECONDS=3 every render is stopped at its deadline and answered 400.
// Target: max under 100 ms while PDFs render (idle is a few ms).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMultipartClient, multipartBody } from './lib/multipart-client.mjs';
import { startReferenceServer } from './lib/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testing = await import(
  pathToFileURL(path.join(root, 'packages/preview-core/dist/testing/index.js')).href
);
const phaseSeconds = Number(process.env.BENCH_ISOLATION_SECONDS ?? 12);
const deadlineSeconds = 3;

const percentile = (values, fraction) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
};

/** Probes `/health/live/` every 10 ms for `seconds`; resolves with every answer time in ms. */
async function probe(url, seconds) {
  const times = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    const response = await fetch(`${url}/health/live/`);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`/health/live/ answered ${response.status}`);
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return times;
}

/** Keeps `count` costly thumbnails in flight until `stop()`; counts the answers by status. */
function keepInFlight(client, url, body, count) {
  const statuses = new Map();
  let stopped = false;
  const loops = Array.from({ length: count }, async () => {
    while (!stopped) {
      const status = await client.post(url, body).then(
        () => 200,
        (error) => Number(/HTTP (\d+)/.exec(error.message)?.[1] ?? 0),
      );
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return Object.fromEntries(statuses);
    },
  };
}

const line = (label, times, idle) =>
  `${label.padEnd(28)} p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms (n=${times.length})` +
  (idle ? `; p99 / idle p99 ${(percentile(times, 0.99) / percentile(idle, 0.99)).toFixed(1)}` : '');

async function main() {
  const costly = await testing.makeCostlyPdf(100_000);
  const server = await startReferenceServer({ PREVIEW_RENDER_TIMEOUT_SECONDS: String(deadlineSeconds) });
  const client = createMultipartClient({ maxSockets: 8 });
  try {
    const url = `${server.url}/preview/pdf/256x256/thumbnail/`;
    const body = multipartBody(costly, { fileName: 'costly.pdf' });
    const ordinary = multipartBody(await testing.makePdf(1), { fileName: 'one.pdf' });
    await client.post(url, ordinary);
    await probe(server.url, 1);
    const idle = await probe(server.url, phaseSeconds);
    console.log(
      `costly PDF: ${costly.byteLength} bytes; deadline ${deadlineSeconds} s; ${phaseSeconds} s per phase`,
    );
    console.log(line('idle server', idle));
    for (const count of [1, 4]) {
      const load = keepInFlight(client, url, body, count);
      const times = await probe(server.url, phaseSeconds);
      const statuses = await load.stop();
      console.log(
        line(`${count} costly PDF(s) in flight`, times, idle),
        `answers: ${JSON.stringify(statuses)}`,
      );
      const max = Math.max(...times);
      console.log(`  max ${max.toFixed(1)} ms: ${max < 100 ? 'meets' : 'MISSES'} the target (< 100 ms)`);
    }
  } finally {
    client.close();
    await server.stop();
  }
}

await main();
