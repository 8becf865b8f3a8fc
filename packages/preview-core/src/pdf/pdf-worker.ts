import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import { isPreviewError, PreviewError } from '../errors.js';
import { loadMupdf } from './mupdf-module.js';
import {
  failedOutcome,
  type NumberedPdfTask,
  type PdfTaskOutcome,
  type PdfTaskStarted,
  type PdfWorkerData,
} from './pdf-task.js';
import { runPdfTask } from './pdf-work.js';

// On Linux, process id 0 names the calling thread alone: this worker, not the process serving requests.
if (process.platform === 'linux') setPriority(0, (workerData as PdfWorkerData).nice);

// A worker is ready once mupdf's WASM is compiled, so a task's deadline never pays for it. When mupdf
// (an optional peer) is missing, the worker stays up and answers each task with that error.
const mupdfMissing = await loadMupdf().then(
  () => undefined,
  (error: unknown) => (isPreviewError(error, 'MISSING_DEPENDENCY') ? error : Promise.reject(error)),
);

/** Moves `outcome` to the main thread with its bytes transferred, not copied. */
function transferred(outcome: PdfTaskOutcome, buffers: ArrayBuffer[]) {
  return move({
    get [transferableSymbol]() {
      return buffers;
    },
    get [valueSymbol]() {
      return outcome;
    },
  });
}

/**
 * The buffer behind a result's bytes when they fill it: it can move. Bytes cut out of a shared slab
 * (Node's small Buffers) are copied instead, since moving the slab would break this thread's pool.
 */
function bufferOf(bytes: Uint8Array): ArrayBuffer[] {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole && bytes.buffer instanceof ArrayBuffer ? [bytes.buffer] : [];
}

/** A trap or abort inside WASM (`WebAssembly.RuntimeError`; the type is not in this build's lib). */
function isWasmAbort(error: unknown): boolean {
  return error instanceof Error && error.constructor.name === 'RuntimeError';
}

/**
 * The PDF worker thread's task handler (piscina loads this module's default export). Errors come
 * back as outcomes carrying their code. An abort inside mupdf's WASM leaves the module unusable, so
 * the thread exits at once and the pool replaces it; the request sees that the renderer stopped.
 */
export default async function handlePdfTask(task: NumberedPdfTask): Promise<unknown> {
  parentPort?.postMessage({ pdfTaskStarted: task.id } satisfies PdfTaskStarted);
  if (mupdfMissing) return transferred(failedOutcome(mupdfMissing), []);
  try {
    const value = await runPdfTask(task);
    return transferred({ ok: true, value }, bufferOf(value.data));
  } catch (error) {
    if (isWasmAbort(error)) process.exit(70);
    const known = isPreviewError(error)
      ? error
      : new PreviewError(
          'UNREADABLE_INPUT',
          'expected a PDF the renderer can process but it failed on this one',
        );
    return transferred(failedOutcome(known), []);
  }
}
