import { PreviewError } from '../errors.js';

/** How busy a {@link RenderQueue} is right now. */
export interface RenderQueueStats {
  readonly activeRenders: number;
  readonly queuedRenders: number;
  readonly maxConcurrentRenders: number;
  readonly maxQueuedRenders: number;
}

/** Runs at most `maxConcurrentRenders` tasks at once, with a bounded queue of waiting tasks. */
export interface RenderQueue {
  /**
   * Runs `task` when a slot is free. A task still waiting when `signal` aborts is dropped and the
   * promise rejects with the signal's reason.
   * @throws {PreviewError} `BUSY` at once when every slot and queue place is taken, with
   * `details.retryAfterSeconds`.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /**
   * Fails now when a task given to `run` at this moment would be refused, so callers can skip
   * expensive preparation (reading a large upload) that would be wasted.
   * @throws {PreviewError} `BUSY`, as `run` would.
   */
  assertCapacity(): void;
  stats(): RenderQueueStats;
}

interface Waiter {
  start: () => void;
}

/** Creates a {@link RenderQueue}. */
export function createRenderQueue(options: {
  maxConcurrentRenders: number;
  maxQueuedRenders: number;
}): RenderQueue {
  const { maxConcurrentRenders, maxQueuedRenders } = options;
  const waiting: Waiter[] = [];
  let active = 0;
  let averageRenderMilliseconds = 250;

  const retryAfterSeconds = () =>
    Math.max(
      1,
      Math.ceil(((waiting.length + active) * averageRenderMilliseconds) / maxConcurrentRenders / 1000),
    );

  /** Hands the finished task's slot to the next waiter, or frees it. */
  const release = () => {
    const next = waiting.shift();
    if (next) next.start();
    else active -= 1;
  };

  /** Runs a task that already holds a slot. */
  const execute = async <T>(task: () => Promise<T>): Promise<T> => {
    const startedAt = performance.now();
    try {
      return await task();
    } finally {
      averageRenderMilliseconds = 0.8 * averageRenderMilliseconds + 0.2 * (performance.now() - startedAt);
      release();
    }
  };

  const wait = (signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const index = waiting.indexOf(waiter);
        if (index >= 0) waiting.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.push(waiter);
    });

  const hasFreeSlot = () => active < maxConcurrentRenders && waiting.length === 0;

  const assertCapacity = () => {
    if (hasFreeSlot() || waiting.length < maxQueuedRenders) return;
    const seconds = retryAfterSeconds();
    throw new PreviewError(
      'BUSY',
      `all ${maxConcurrentRenders} render slots and ${maxQueuedRenders} queue places are taken; retry in ${seconds} s`,
      { details: { retryAfterSeconds: seconds, activeRenders: active, queuedRenders: waiting.length } },
    );
  };

  return {
    async run(task, signal) {
      signal?.throwIfAborted();
      if (hasFreeSlot()) {
        active += 1;
        return execute(task);
      }
      assertCapacity();
      await wait(signal);
      return execute(task);
    },
    assertCapacity,
    stats: () => ({
      activeRenders: active,
      queuedRenders: waiting.length,
      maxConcurrentRenders,
      maxQueuedRenders,
    }),
  };
}
