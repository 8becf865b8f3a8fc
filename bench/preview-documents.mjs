// Document preview benchmark (run `pnpm build` first; `pnpm bench -- preview-documents`). Needs
// LibreOffice and python3-uno (scripts/install-system-deps.sh).
// 1. docx -> PDF latency, one request at a time: through the HTTP server (warm pool, 1 instance),
//    against (a) a cold `soffice --convert-to pdf` per document and (b) a raw warm UNO conversion of
//    the same file by a bare python3-uno loop. Targets: server p50 at least 10x faster than (a), at
//    most 1.5x (b).
// 2. PDF first-page thumbnail (256x256 jpeg) latency through the server against the HTTP floor: bare
//    node:http receiving the same upload and answering a raw mupdf render plus sharp resize made in
//    its own process (no worker hop). Target: server p50 at most 1.3x the floor, the server's hop to
//    its PDF worker thread included. Also printed: raw render in this process, the library in
//    process (the same pipeline through its worker pool, no HTTP), a server without request logging.
//    These servers run without a LibreOffice pool (DOCUMENT_CONVERTER=none): an idle pool would
//    still take memory and wake-ups from the work measured.
// 3. First-page thumbnail of a 40-slide pptx with a photo per slide (the `deck.pptx` fixture): the
//    library exporting page 1 only (what the server does) against the same library converting the
//    whole deck first (a converter that does not export page ranges), same warm instance, alternating.
//    Target: page range at least 3x faster. Also printed: the server's upload thumbnail of the deck.
// 4. A stored PDF's thumbnail through HTTP answered from the result cache (same URL again) against a
//    fresh render (a new size each time, so a new ETag). Target: cache hit p50 under 2 ms.
// 5. The `long-sheet.xlsx` fixture (about 200 printed pages): its first-page thumbnail and a preview
//    of its last page through the library, converting only the pages asked (what the server does)
//    against converting the whole spreadsheet first, same warm instance, alternating. Printed, no
//    target. `node bench/preview-documents.mjs spreadsheet` runs this part alone.
// The conversion measurements turn the caches off (DOCUMENT_CACHE_MAX_BYTES=0,
// PREVIEW_CACHE_MAX_BYTES=0): the same bytes uploaded again would otherwise be answered from them.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { runBareUploadServer } from './lib/bare-upload-server.mjs';
import { createMultipartClient, multipartBody } from './lib/multipart-client.mjs';
import { startListeningProcess, startReferenceServer } from './lib/processes.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const previewCore = path.join(root, 'packages/preview-core');
const sharp = createRequire(path.join(previewCore, 'package.json'))('sharp');
const mupdf = await import(pathToFileURL(path.join(previewCore, 'node_modules/mupdf/dist/mupdf.js')).href);
const { generateFixtures } = await import(
  pathToFileURL(path.join(previewCore, 'test/fixtures/generate.mjs')).href
);
const core = await import(pathToFileURL(path.join(previewCore, 'dist/index.js')).href);
const python = process.env.LIBREOFFICE_PYTHON ?? '/usr/bin/python3';
const work = mkdtempSync(path.join(tmpdir(), 'bench-documents-'));
const client = createMultipartClient({ maxSockets: 4 });
const post = client.post;

const percentile = (values, fraction) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
};
const describe = (values) =>
  `p50 ${percentile(values, 0.5).toFixed(1)} ms, p95 ${percentile(values, 0.95).toFixed(1)} ms (n=${values.length})`;

async function timed(count, task) {
  const times = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await task();
    times.push(performance.now() - started);
  }
  return times;
}

/** Every server started; the run stops them all at the end, even after a failure. */
const servers = [];

async function startServer(env) {
  const server = await startReferenceServer(env);
  servers.push(server);
  return {
    ...server,
    async waitForConverter() {
      for (let tries = 0; tries < 600; tries += 1) {
        const response = await fetch(`${server.url}/health/ready/`);
        if (response.status === 200) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the document converter never became ready');
    },
  };
}

/** (a) `soffice --convert-to pdf` per document, with a profile made beforehand (the fair cold case). */
async function coldSoffice(docx, count) {
  const profile = `file://${path.join(work, 'cold-profile')}`;
  const convert = () =>
    run('soffice', [
      `-env:UserInstallation=${profile}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      path.join(work, 'cold-out'),
      docx,
    ]);
  await convert();
  return timed(count, convert);
}

/** (b) A bare long-lived python3-uno process on a warm soffice: per input line, load, export, close. */
const RAW_UNO = `
import sys, time, uno
from com.sun.star.beans import PropertyValue
def prop(name, value):
    p = PropertyValue(); p.Name = name; p.Value = value; return p
pipe, source, target = sys.argv[1], sys.argv[2], sys.argv[3]
local = uno.getComponentContext()
resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
for attempt in range(600):
    try:
        context = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe); break
    except Exception:
        time.sleep(0.1)
desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
print("ready", flush=True)
for line in sys.stdin:
    started = time.perf_counter()
    document = desktop.loadComponentFromURL(uno.systemPathToFileUrl(source), "_blank", 0, (prop("Hidden", True),))
    document.storeToURL(uno.systemPathToFileUrl(target), (prop("FilterName", "writer_pdf_Export"),))
    document.close(True)
    print((time.perf_counter() - started) * 1000, flush=True)
`;

/** Starts soffice and the raw loop; `convert()` resolves with the time python measured for one document. */
async function startRawWarmUno(docx) {
  const script = path.join(work, 'raw-uno.py');
  writeFileSync(script, RAW_UNO);
  const pipe = `bench-raw-${process.pid}`;
  const soffice = spawn(
    'soffice',
    [
      `-env:UserInstallation=file://${path.join(work, 'raw-profile')}`,
      '--headless',
      '--invisible',
      '--norestore',
      `--accept=pipe,name=${pipe};urp;StarOffice.ComponentContext`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  const loop = spawn(python, [script, pipe, docx, path.join(work, 'raw.pdf')], {
    env: { ...process.env, PYENV_VERSION: 'system' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: loop.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = () => new Promise((resolve) => waiting.push(resolve));
  await next();
  return {
    async convert() {
      const answer = next();
      loop.stdin.write('go\n');
      return Number(await answer);
    },
    stop() {
      if (loop.exitCode === null && loop.signalCode === null) loop.kill('SIGKILL');
      try {
        process.kill(-soffice.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

/** Raw first-page thumbnail: mupdf render at the covering zoom, raw pixels to sharp, 256x256 top crop. */
async function rawThumbnail(pdf) {
  const document = mupdf.Document.openDocument(pdf, 'application/pdf');
  const page = document.loadPage(0);
  const [x0, y0, x1, y1] = page.getBounds();
  const scale = Math.max(256 / (x1 - x0), 256 / (y1 - y0));
  const pixmap = page.toPixmap(mupdf.Matrix.scale(scale, scale), mupdf.ColorSpace.DeviceRGB, false, true);
  const raw = {
    width: pixmap.getWidth(),
    height: pixmap.getHeight(),
    channels: pixmap.getNumberOfComponents(),
  };
  const pixels = Buffer.from(pixmap.getPixels());
  pixmap.destroy();
  page.destroy();
  document.destroy();
  return sharp(pixels, { raw })
    .resize(256, 256, { fit: 'cover', position: 'top' })
    .jpeg({ quality: 50 })
    .toBuffer();
}

/** First-page thumbnails through the server and raw, in alternating rounds. */
async function measureThumbnails(pdfService, serverUrl, floorUrl, pdf) {
  const pdfBody = multipartBody(pdf, { fileName: 'text.pdf' });
  const thumbnailUrl = `${serverUrl}/preview/pdf/256x256/thumbnail/`;
  const library = () => pdfService.thumbnail(pdf, { area: '256x256' });
  const floor = () => post(floorUrl, pdfBody);
  await timed(20, () => post(thumbnailUrl, pdfBody));
  await timed(20, () => rawThumbnail(pdf));
  await timed(20, library);
  await timed(20, floor);
  const server = [];
  const raw = [];
  const inProcess = [];
  const bare = [];
  for (let round = 0; round < 8; round += 1) {
    raw.push(...(await timed(25, () => rawThumbnail(pdf))));
    server.push(...(await timed(25, () => post(thumbnailUrl, pdfBody))));
    inProcess.push(...(await timed(25, library)));
    bare.push(...(await timed(25, floor)));
  }
  return { server, raw, inProcess, bare };
}

/** Starts the bare node:http thumbnail server (this file with --bare-thumbnail-server). */
async function startFloorServer() {
  const floor = await startListeningProcess([fileURLToPath(import.meta.url), '--bare-thumbnail-server']);
  servers.push(floor);
  return `${floor.url}/`;
}

const NO_CACHES = { DOCUMENT_CACHE_MAX_BYTES: '0', PREVIEW_CACHE_MAX_BYTES: '0' };

/**
 * Two document services on one warm LibreOffice instance, no cache: `pageRange` as the server runs
 * it (page 1 only for thumbnails, named ranges alone) and `whole`, whose converter neither exports
 * page ranges nor counts pages, so every request converts the whole document first.
 */
async function withRangeAndWholeServices(work) {
  const converter = core.createLibreOfficeConverter({ instances: 1 });
  const previewService = core.createPreviewService({});
  const pdfService = core.createPdfPreviewService({ previewService });
  const pageRange = core.createDocumentPreviewService({ previewService, pdfService, converter });
  const wholeConverter = { ...converter, exportsPageRanges: false, convertPages: undefined };
  const whole = core.createDocumentPreviewService({ previewService, pdfService, converter: wholeConverter });
  try {
    await converter.whenStarted();
    return await work({ pageRange, whole });
  } finally {
    await converter.close();
    await pdfService.close();
  }
}

/** One warm-up of each, then alternating rounds: two of `pageRangeTask`, one of `wholeTask`. */
async function alternate(pageRangeTask, wholeTask) {
  await pageRangeTask();
  await wholeTask();
  const pageRangeTimes = [];
  const wholeTimes = [];
  for (let round = 0; round < 5; round += 1) {
    pageRangeTimes.push(...(await timed(2, pageRangeTask)));
    wholeTimes.push(...(await timed(1, wholeTask)));
  }
  return { pageRangeTimes, wholeTimes };
}

/** 3. Page-1 export against whole conversion for a deck thumbnail. */
async function measureDeck(deckPath) {
  const deck = readFileSync(deckPath);
  return withRangeAndWholeServices(async ({ pageRange, whole }) => {
    const thumbnail = (service) => () => service.thumbnail(deck, { area: '256x256' });
    return { deck, ...(await alternate(thumbnail(pageRange), thumbnail(whole))) };
  });
}

/** 5. The ~200-page spreadsheet: page-1 thumbnail and last-page preview, range against whole. */
async function measureSpreadsheet(sheetPath) {
  const sheet = readFileSync(sheetPath);
  return withRangeAndWholeServices(async ({ pageRange, whole }) => {
    const { pageCount } = await pageRange.preview(sheet, { firstPage: 1, lastPage: 1 });
    const thumbnail = (service) => () => service.thumbnail(sheet, { area: '256x256' });
    const lastPage = (service) => () => service.preview(sheet, { firstPage: pageCount, lastPage: pageCount });
    return {
      sheet,
      pageCount,
      thumbnail: await alternate(thumbnail(pageRange), thumbnail(whole)),
      lastPage: await alternate(lastPage(pageRange), lastPage(whole)),
    };
  });
}

/** Prints page range against whole conversion and the ratio of their medians. */
function printRangeAgainstWhole(label, { pageRangeTimes, wholeTimes }, target) {
  const ratio = percentile(wholeTimes, 0.5) / percentile(pageRangeTimes, 0.5);
  console.log(`${label}, pages asked only (what the server does): ${describe(pageRangeTimes)}`);
  console.log(`${label}, whole document converted first:         ${describe(wholeTimes)}`);
  const verdict =
    target === undefined ? '' : ` (target >= ${target}: ${ratio >= target ? 'meets' : 'MISSES'})`;
  console.log(`whole / page range at p50: ${ratio.toFixed(1)}x${verdict}`);
}

/** `node bench/preview-documents.mjs spreadsheet`: part 5 alone. */
async function spreadsheetOnly() {
  const fixtures = await generateFixtures();
  const result = await measureSpreadsheet(fixtures['long-sheet.xlsx']);
  printSpreadsheet(result);
}

function printSpreadsheet({ sheet, pageCount, thumbnail, lastPage }) {
  console.log(
    `\nlong-sheet.xlsx (${pageCount} printed pages, ${sheet.length} bytes), library, warm instance, caches off:`,
  );
  printRangeAgainstWhole('first-page thumbnail 256x256', thumbnail);
  printRangeAgainstWhole(`preview of page ${pageCount} (the last)`, lastPage);
}

/** 4. A stored PDF's thumbnail: result-cache hits against fresh renders, through HTTP. */
async function measureCacheHits(pdf) {
  const storage = path.join(work, 'stored');
  const id = '6f1e2d3c-4b5a-4697-8877-665544332211';
  const folder = path.join(storage, 'files', id);
  (await import('node:fs')).mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, '1'), pdf);
  const server = await startServer({ DOCUMENT_CONVERTER: 'none', STORAGE_DIR: storage });
  const url = (side) => `${server.url}/preview/pdf/${id}/1/${side}x${side}/thumbnail/?service_type=files`;
  const get = async (target) => {
    const response = await fetch(target);
    if (response.status !== 200) throw new Error(`${target} answered ${response.status}`);
    await response.arrayBuffer();
  };
  let side = 100;
  await get(url(256));
  await timed(50, () => get(url(256)));
  await timed(20, () => get(url(side++)));
  const hits = [];
  const fresh = [];
  for (let round = 0; round < 8; round += 1) {
    hits.push(...(await timed(25, () => get(url(256)))));
    fresh.push(...(await timed(25, () => get(url(side++)))));
  }
  await server.stop();
  return { hits, fresh };
}

async function main() {
  const fixtures = await generateFixtures({ include: ['deck.pptx'] });
  const docxPath = fixtures['text.docx'];
  const docx = readFileSync(docxPath);
  console.log(`document: text.docx from the test fixtures (3 pages, ${docx.length} bytes)`);
  const server = await startServer({
    DOCUMENT_CONVERTER: 'libreoffice',
    LIBREOFFICE_INSTANCES: '1',
    ...NO_CACHES,
  });
  const raw = await startRawWarmUno(docxPath);
  const pdfService = core.createPdfPreviewService({ previewService: core.createPreviewService({}) });
  try {
    await server.waitForConverter();
    const documentBody = multipartBody(docx, { fileName: 'text.docx' });
    const documentUrl = `${server.url}/preview/document/`;
    const pdf = await post(documentUrl, documentBody);
    await timed(5, () => post(documentUrl, documentBody));
    await timed(5, () => raw.convert());
    // Alternate short rounds so load from other processes on the machine hits both sides alike.
    const viaServer = [];
    const rawWarm = [];
    for (let round = 0; round < 8; round += 1) {
      viaServer.push(...(await timed(5, () => post(documentUrl, documentBody))));
      for (let index = 0; index < 5; index += 1) rawWarm.push(await raw.convert());
    }
    raw.stop();
    await server.stop();

    const thumbnailServer = await startServer({ DOCUMENT_CONVERTER: 'none' });
    const floorUrl = await startFloorServer();
    const thumbnails = await measureThumbnails(pdfService, thumbnailServer.url, floorUrl, pdf);
    await thumbnailServer.stop();
    const quietServer = await startServer({ DOCUMENT_CONVERTER: 'none', LOG_LEVEL: 'warn' });
    const quietThumbnails = await measureThumbnails(pdfService, quietServer.url, floorUrl, pdf);
    await quietServer.stop();
    const cold = await coldSoffice(docxPath, 8);
    const deck = await measureDeck(fixtures['deck.pptx']);
    const spreadsheet = await measureSpreadsheet(fixtures['long-sheet.xlsx']);
    const deckServer = await startServer({
      DOCUMENT_CONVERTER: 'libreoffice',
      LIBREOFFICE_INSTANCES: '1',
      ...NO_CACHES,
    });
    await deckServer.waitForConverter();
    const deckBody = multipartBody(deck.deck, { fileName: 'deck.pptx' });
    const deckUrl = `${deckServer.url}/preview/document/256x256/thumbnail/`;
    await post(deckUrl, deckBody);
    const deckViaServer = await timed(6, () => post(deckUrl, deckBody));
    await deckServer.stop();
    const cacheHits = await measureCacheHits(pdf);

    const serverP50 = percentile(viaServer, 0.5);
    console.log(`\ndocx -> PDF through the server (warm pool, 1 instance): ${describe(viaServer)}`);
    console.log(`(a) cold soffice --convert-to pdf per document:        ${describe(cold)}`);
    console.log(`(b) raw warm UNO (python3-uno loop, no HTTP):          ${describe(rawWarm)}`);
    console.log(
      `cold / server at p50: ${(percentile(cold, 0.5) / serverP50).toFixed(1)}x faster (target >= 10)`,
    );
    console.log(
      `server / raw warm UNO at p50: ${(serverP50 / percentile(rawWarm, 0.5)).toFixed(2)} (target <= 1.5); at p95: ${(percentile(viaServer, 0.95) / percentile(rawWarm, 0.95)).toFixed(2)}`,
    );
    console.log(`\n40-slide pptx (${deck.deck.length} bytes), library, warm instance:`);
    printRangeAgainstWhole('first-page thumbnail 256x256', deck, 3);
    console.log(`the same thumbnail uploaded through the server (caches off): ${describe(deckViaServer)}`);
    printSpreadsheet(spreadsheet);
    const hitP50 = percentile(cacheHits.hits, 0.5);
    console.log(
      `\nstored PDF thumbnail through HTTP, answered from the result cache: ${describe(cacheHits.hits)}`,
    );
    console.log(
      `stored PDF thumbnail through HTTP, a fresh render (new size each time): ${describe(cacheHits.fresh)}`,
    );
    console.log(
      `cache hit p50 ${hitP50.toFixed(2)} ms (target < 2: ${hitP50 < 2 ? 'meets' : 'MISSES'}); fresh / hit at p50: ${(percentile(cacheHits.fresh, 0.5) / hitP50).toFixed(1)}x`,
    );
    for (const [label, result] of [
      ['default logging', thumbnails],
      ['LOG_LEVEL=warn, no request log lines', quietThumbnails],
    ]) {
      console.log(`\nPDF thumbnail 256x256 jpeg through the server (${label}): ${describe(result.server)}`);
      console.log(`raw mupdf render + sharp resize in process, same rounds: ${describe(result.raw)}`);
      console.log(`createPdfPreviewService().thumbnail in process (no HTTP): ${describe(result.inProcess)}`);
      console.log(`bare node:http answering the raw thumbnail (the HTTP floor): ${describe(result.bare)}`);
      const overFloor = percentile(result.server, 0.5) / percentile(result.bare, 0.5);
      const overFloorP95 = percentile(result.server, 0.95) / percentile(result.bare, 0.95);
      const overRaw = percentile(result.server, 0.5) / percentile(result.raw, 0.5);
      const floor = percentile(result.bare, 0.5) / percentile(result.raw, 0.5);
      console.log(
        `server / HTTP floor at p50: ${overFloor.toFixed(2)} (target <= 1.3: ${overFloor <= 1.3 ? 'meets' : 'MISSES'}); at p95: ${overFloorP95.toFixed(2)}`,
      );
      console.log(
        `for scale: server / raw at p50 ${overRaw.toFixed(2)}; HTTP floor / raw at p50 ${floor.toFixed(2)}`,
      );
    }
  } finally {
    raw.stop();
    await pdfService.close();
    // Every server started, whatever failed: none may outlive this process.
    await Promise.all(servers.map((started) => started.stop()));
    client.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--bare-thumbnail-server') {
  runBareUploadServer(rawThumbnail, 'image/jpeg');
} else if (process.argv[2] === 'spreadsheet') {
  await spreadsheetOnly();
} else {
  await main();
}
