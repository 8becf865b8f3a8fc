import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { z } from 'zod';
import { PreviewError } from '../errors.js';
import { createRenderQueue, type RenderQueueStats } from '../limits/render-queue.js';
import { parseOptions } from '../options/parse-options.js';
import {
  isTaskStarted,
  type NumberedPdfTask,
  outcomeError,
  type PdfTask,
  type PdfTaskOutcome,
  type PdfWorkerData,
} from './pdf-task.js';

/** Options of {@link createPdfWorkerPool}, parsed once. */
export const pdfWorkerPoolOptionsSchema = z.strictObject({
  /**
   * Worker threads, each with its own mupdf (about 30 MB once warm). One per core: PDF work is pure
   * CPU, so more threads than cores only share the same cores.
   * @default the number of cores (`os.availableParallelism()`)
   */
  workers: z.number().int().min(1).max(256).default(availableParallelism()),
  /**
   * Longest one task may work, in seconds, counted from the moment a worker starts it. Past it the
   * worker is terminated and replaced, and the task fails with `RENDER_TIMEOUT`.
   * @default 20
   */
  timeoutSeconds: z.number().positive().max(3600).default(20),
  /**
   * Scheduling priority of the worker threads, as a Unix nice value (0 to 19; Linux only, where each
   * thread has its own). Below the caller's, so the thread serving requests gets a core first when
   * PDF work keeps every core busy; the work still uses every idle cycle.
   * @default 10
   */
  workerNice: z.number().int().min(0).max(19).default(10),
  /**
   * Tasks waiting for a worker. Past it a task fails at once with `BUSY`.
   * @default 32
   */
  maxQueuedTasks: z.number().int().min(0).default(32),
});

/** Options of {@link createPdfWorkerPool} as a caller writes them. */
export type PdfWorkerPoolOptions = z.input<typeof pdfWorkerPoolOptionsSchema>;

/** Health figures of a {@link PdfWorkerPool}. */
export interface PdfWorkerPoolStats extends RenderQueueStats {
  /** Worker threads alive now (replacements of terminated ones included once started). */
  readonly threads: number;
  /** Tasks a worker is working on now (admitted tasks may still wait for a fresh worker to start). */
  readonly runningTasks: number;
  /** Tasks stopped at their deadline since the pool started. */
  readonly timedOut: number;
  /** Workers that died during a task (a crash inside mupdf) since the pool started. */
  readonly crashed: number;
}

/** Options of one {@link PdfWorkerPool.run}. */
export interface PdfTaskOptions {
  /** Aborts the task: dropped while waiting, its worker terminated while running. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Hand the input's memory to the worker instead of copying it: the whole ArrayBuffer behind `bytes`
   * is moved, so `bytes` and every other view of that buffer are detached (length 0) once `run` is
   * called (buffers of 64 KiB or less are copied anyway). Never set it for a view into memory that
   * something else still uses, such as a reused buffer pool.
   * @default false
   */
  readonly transferInput?: boolean | undefined;
}

/** A pool of worker threads doing the PDF work (mupdf, pdf-lib) off the caller's event loop. */
export interface PdfWorkerPool {
  readonly options: z.output<typeof pdfWorkerPoolOptionsSchema>;
  /**
   * Runs `task` on a worker when one is free, within the deadline.
   * @throws {PreviewError} the task's own codes; `RENDER_TIMEOUT` past the deadline; `BUSY` when every
   * worker and queue place is taken; `UNREADABLE_INPUT` when the worker died on the input.
   */
  run(task: PdfTask, options?: PdfTaskOptions): Promise<PdfTaskOutcome & { ok: true }>;
  /**
   * Fails now when a task given to `run` at this moment would be refused.
   * @throws {PreviewError} `BUSY`.
   */
  assertCapacity(): void;
  stats(): PdfWorkerPoolStats;
  /** The worker threads alive now (for monitoring and fault tests). */
  readonly threads: readonly Worker[];
  /** Terminates the workers; tasks still running fail. Idempotent. */
  close(): Promise<void>;
}

/** The worker entry: the built one beside this bundle, or a loader of the TypeScript source. */
function workerFilename(): string {
  const fromSources = import.meta.url.endsWith('.ts');
  return new URL(fromSources ? './pdf-worker.dev.mjs' : './pdf-worker.js', import.meta.url).href;
}

/**
 * Buffers at most this large are never moved: Node cuts its small Buffers out of shared 8 KiB slabs,
 * which must stay where they are, and copying 64 KiB costs microseconds.
 */
const smallestMovedBuffer = 64 * 1024;

/**
 * The input as it goes to the worker, and the buffer moved with it: the caller's own memory when it
 * hands it over, else one copy of exactly its bytes (a view sent as it is would copy its whole buffer).
 */
function handOver(bytes: Uint8Array, transferInput: boolean | undefined) {
  const { buffer } = bytes;
  const movable = buffer instanceof ArrayBuffer && buffer.byteLength > smallestMovedBuffer;
  const input = transferInput && movable ? bytes : new Uint8Array(bytes);
  return { input, buffer: input.buffer as ArrayBuffer };
}

function timedOut(timeoutSeconds: number): PreviewError {
  return new PreviewError(
    'RENDER_TIMEOUT',
    `expected the PDF to render within the limit of ${timeoutSeconds} s but it was stopped; the document is too costly to render (e.g. a page of hundreds of thousands of vector strokes)`,
    { details: { timeoutSeconds } },
  );
}

const crashed = () =>
  new PreviewError(
    'UNREADABLE_INPUT',
    'expected a PDF the renderer can process but the renderer stopped while working on this one',
  );

/**
 * Creates a pool of PDF worker threads (piscina), started on first use. Its own queue admits one task
 * per worker, so a task's deadline starts when a worker takes it.
 * @throws {PreviewError} `INVALID_OPTION` when an option is malformed.
 */
export function createPdfWorkerPool(input: PdfWorkerPoolOptions = {}): PdfWorkerPool {
  const options = parseOptions(pdfWorkerPoolOptionsSchema, input);
  const queue = createRenderQueue({
    maxConcurrentRenders: options.workers,
    maxQueuedRenders: options.maxQueuedTasks,
  });
  const starts = new Map<number, () => void>();
  let piscina: Piscina | undefined;
  let nextId = 0;
  let running = 0;
  let timeouts = 0;
  let crashes = 0;
  let closed = false;

  const pool = () => {
    if (closed)
      throw new PreviewError('BUSY', 'the PDF worker pool is closed', { details: { retryAfterSeconds: 1 } });
    piscina ??= new Piscina({
      filename: workerFilename(),
      minThreads: options.workers,
      maxThreads: options.workers,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData: { nice: options.workerNice } satisfies PdfWorkerData,
      maxQueue: 'auto',
    })
      .on('message', (message: unknown) => {
        if (isTaskStarted(message)) starts.get(message.pdfTaskStarted)?.();
      })
      // A worker that fails while it has no task: piscina replaces it; nothing waits for an answer.
      .on('error', () => {
        crashes += 1;
      });
    return piscina;
  };

  const execute = async (task: PdfTask, taskOptions: PdfTaskOptions) => {
    const id = nextId++;
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    starts.set(id, () => {
      running += 1;
      timer = setTimeout(() => deadline.abort(), options.timeoutSeconds * 1000);
    });
    const signals = [deadline.signal, ...(taskOptions.signal ? [taskOptions.signal] : [])];
    const { input, buffer } = handOver(task.bytes, taskOptions.transferInput);
    try {
      const numbered: NumberedPdfTask = { ...task, bytes: input, id };
      const outcome: PdfTaskOutcome = await pool().run(numbered, {
        signal: AbortSignal.any(signals),
        transferList: [buffer],
      });
      if (!outcome.ok) throw outcomeError(outcome);
      return outcome;
    } catch (error) {
      if (deadline.signal.aborted) {
        timeouts += 1;
        throw timedOut(options.timeoutSeconds);
      }
      if (taskOptions.signal?.aborted) throw taskOptions.signal.reason;
      if (error instanceof PreviewError) throw error;
      crashes += 1;
      throw crashed();
    } finally {
      if (timer) running -= 1;
      clearTimeout(timer);
      starts.delete(id);
    }
  };

  return {
    options,
    run: (task, taskOptions = {}) => queue.run(() => execute(task, taskOptions), taskOptions.signal),
    assertCapacity: () => queue.assertCapacity(),
    stats: () => ({
      ...queue.stats(),
      threads: piscina?.threads.length ?? 0,
      runningTasks: running,
      timedOut: timeouts,
      crashed: crashes,
    }),
    get threads() {
      return piscina?.threads ?? [];
    },
    async close() {
      closed = true;
      await piscina?.destroy();
    },
  };
}
