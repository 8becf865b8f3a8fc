import { parentPort, workerData } from 'node:worker_threads';
import type { SfuOptionsInput } from '../options.js';
import { createSfu, type Sfu } from '../sfu.js';
import { SFU_WORKER_CLOSE } from './sfu-worker.js';

/** What the application's worker module does with its SFU; see {@link serveSfuWorker}. */
export interface SfuWorkerHandler {
  /** Handles one message from the application (anything but the close request). */
  onMessage(message: unknown): void;
  /** Runs before the SFU closes when the application closes the worker. */
  close?(): Promise<void> | void;
}

/**
 * The worker thread's side of {@link createSfuWorker}: creates the SFU from the options handed over,
 * gives it to `handler` with a function that posts messages to the application, and on the close
 * request closes the handler, then the SFU, then ends the thread.
 * @throws Error when not called in a worker thread.
 * @throws SfuError `invalid_options` when the options handed over are malformed.
 */
export function serveSfuWorker(
  handler: (sfu: Sfu, send: (message: unknown) => void) => SfuWorkerHandler,
): Sfu {
  if (parentPort === null)
    throw new Error('serveSfuWorker runs in a worker thread started by createSfuWorker');
  const port = parentPort;
  const sfu = createSfu(workerData as SfuOptionsInput);
  const handling = handler(sfu, (message) => port.postMessage(message));
  port.on('message', (message: unknown) => {
    if (message !== SFU_WORKER_CLOSE) {
      handling.onMessage(message);
      return;
    }
    void Promise.resolve(handling.close?.()).finally(() => {
      sfu.close();
      port.close();
    });
  });
  return sfu;
}
