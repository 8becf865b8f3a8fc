import { Worker } from 'node:worker_threads';
import type { SfuOptionsInput } from '../options.js';

/** Options of {@link createSfuWorker}. */
export interface SfuWorkerOptions {
  /** The worker thread's module: one that calls {@link serveSfuWorker}. */
  readonly entry: URL | string;
  /** Options of the SFU the worker creates (handed over as `workerData`). */
  readonly sfuOptions?: SfuOptionsInput;
  /** How long {@link SfuWorker.close} waits for the worker to end before terminating it. @default 5000 */
  readonly stopTimeoutMs?: number;
}

/** A supervised worker thread running an SFU; see {@link createSfuWorker}. */
export interface SfuWorker {
  /** Posts a message to the worker's handler. */
  send(message: unknown): void;
  /** Listens to the worker's messages; returns a function that stops listening. */
  onMessage(listener: (message: unknown) => void): () => void;
  /** Listens to unexpected ends of the worker (it is replaced at once); the argument is its exit code. */
  onRestart(listener: (exitCode: number) => void): () => void;
  /** Listens to errors thrown in the worker. */
  onError(listener: (error: Error) => void): () => void;
  /** Times the worker ended on its own and was replaced. */
  readonly restarts: number;
  /** The worker thread now (for monitoring and fault tests). */
  readonly thread: Worker;
  /** Asks the worker to close its SFU and end, terminating it after `stopTimeoutMs`. Idempotent. */
  close(): Promise<void>;
}

function listeners<T>() {
  const set = new Set<(value: T) => void>();
  return {
    add(listener: (value: T) => void) {
      set.add(listener);
      return () => void set.delete(listener);
    },
    emit(value: T) {
      for (const listener of [...set]) listener(value);
    },
  };
}

/**
 * Runs an SFU in a worker thread, so that its packets, audio mixing and timers never wait behind the
 * application's event loop (nor hold it up). A worker that ends on its own is replaced by a new one at
 * once (its routers are gone: `onRestart` says so). The application and the worker talk by messages
 * of its own design; {@link serveSfuWorker} is the worker's side.
 */
export function createSfuWorker(options: SfuWorkerOptions): SfuWorker {
  const messages = listeners<unknown>();
  const restartListeners = listeners<number>();
  const errors = listeners<Error>();
  let restarts = 0;
  let closing: Promise<void> | undefined;
  let worker: Worker;

  const start = (): Worker => {
    const started = new Worker(options.entry, { workerData: options.sfuOptions ?? {} });
    started.on('message', (message: unknown) => messages.emit(message));
    started.on('error', (error) => errors.emit(error));
    started.on('exit', (code) => {
      if (closing || started !== worker) return;
      restarts += 1;
      worker = start();
      restartListeners.emit(code);
    });
    return started;
  };
  worker = start();

  return {
    send: (message) => worker.postMessage(message),
    onMessage: messages.add,
    onRestart: restartListeners.add,
    onError: errors.add,
    get restarts() {
      return restarts;
    },
    get thread() {
      return worker;
    },
    close() {
      closing ??= (async () => {
        const stopped = new Promise((resolve) => worker.once('exit', resolve));
        worker.postMessage(SFU_WORKER_CLOSE);
        const forced = setTimeout(() => void worker.terminate(), options.stopTimeoutMs ?? 5000);
        await stopped;
        clearTimeout(forced);
      })();
      return closing;
    },
  };
}

/** The message {@link SfuWorker.close} posts: the worker closes its SFU and ends. */
export const SFU_WORKER_CLOSE = 'close';
