import { afterEach, describe, expect, it } from 'vitest';
import { createSfuWorker, type SfuWorker } from '../src/index.js';

const entry = new URL('./fixtures/echo-worker.dev.mjs', import.meta.url);
const open: SfuWorker[] = [];

/** The next message the worker sends, after posting `message`. */
function ask(worker: SfuWorker, message: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    const stop = worker.onMessage((answer) => {
      stop();
      resolve(answer);
    });
    worker.send(message);
  });
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((worker) => worker.close()));
});

// A real worker thread running a real SFU (werift), driven by messages of the test's own design.
describe('createSfuWorker', () => {
  it('runs an SFU with the given options in a worker thread and relays messages both ways', async () => {
    const worker = createSfuWorker({ entry, sfuOptions: { limits: { sessionsPerRouter: 7 } } });
    open.push(worker);
    expect(await ask(worker, 'open')).toEqual({ routers: 1, sessionsPerRouter: 7 });
    expect(await ask(worker, 'routers')).toEqual({ routers: 1, sessionsPerRouter: 7 });
  }, 60_000);

  it('replaces a worker that ends on its own and says so; the new one starts empty', async () => {
    const worker = createSfuWorker({ entry });
    open.push(worker);
    await ask(worker, 'open');
    const first = worker.thread;
    const restarted = new Promise<number>((resolve) => worker.onRestart(resolve));
    worker.send('crash');
    expect(await restarted).toBe(3);
    expect(worker.restarts).toBe(1);
    expect(worker.thread).not.toBe(first);
    expect(await ask(worker, 'routers')).toMatchObject({ routers: 0 });
  }, 60_000);

  it('closes the worker thread on close(), idempotently', async () => {
    const worker = createSfuWorker({ entry });
    await ask(worker, 'routers');
    const exited = new Promise<number>((resolve) => worker.thread.once('exit', resolve));
    await Promise.all([worker.close(), worker.close()]);
    expect(await exited).toBe(0);
  }, 60_000);
});
