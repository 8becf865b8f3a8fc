import { describe, expect, it } from 'vitest';
import { createRenderQueue } from './render-queue.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('createRenderQueue', () => {
  it('never runs more tasks at once than the concurrency', async () => {
    const queue = createRenderQueue({ maxConcurrentRenders: 2, maxQueuedRenders: 10 });
    let running = 0;
    let highest = 0;
    const task = async () => {
      running += 1;
      highest = Math.max(highest, running);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
    };
    await Promise.all(Array.from({ length: 9 }, () => queue.run(task)));
    expect(highest).toBe(2);
    expect(queue.stats()).toMatchObject({ activeRenders: 0, queuedRenders: 0 });
  });

  it('answers BUSY with a retry hint once the queue is full, and recovers', async () => {
    const queue = createRenderQueue({ maxConcurrentRenders: 1, maxQueuedRenders: 1 });
    const gate = deferred();
    const first = queue.run(() => gate.promise);
    const second = queue.run(async () => 'second');
    expect(queue.stats()).toMatchObject({ activeRenders: 1, queuedRenders: 1 });
    expect(() => queue.assertCapacity()).toThrow(expect.objectContaining({ code: 'BUSY' }));
    const third = queue.run(async () => 'third');
    await expect(third).rejects.toMatchObject({
      code: 'BUSY',
      details: { retryAfterSeconds: expect.any(Number) },
    });
    gate.resolve();
    await first;
    await expect(second).resolves.toBe('second');
    expect(() => queue.assertCapacity()).not.toThrow();
    await expect(queue.run(async () => 'later')).resolves.toBe('later');
  });

  it('drops a waiting task whose signal aborts', async () => {
    const queue = createRenderQueue({ maxConcurrentRenders: 1, maxQueuedRenders: 5 });
    const gate = deferred();
    const first = queue.run(() => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const waiting = queue.run(async () => {
      ran = true;
    }, controller.signal);
    controller.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect(queue.stats().queuedRenders).toBe(0);
    gate.resolve();
    await first;
    expect(ran).toBe(false);
    expect(queue.stats().activeRenders).toBe(0);
  });

  it('frees the slot when a task fails', async () => {
    const queue = createRenderQueue({ maxConcurrentRenders: 1, maxQueuedRenders: 0 });
    await expect(queue.run(() => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    await expect(queue.run(async () => 42)).resolves.toBe(42);
  });
});
