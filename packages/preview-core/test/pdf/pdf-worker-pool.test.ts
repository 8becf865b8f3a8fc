import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreviewError } from '../../src/errors.js';
import { createPdfPreviewer } from '../../src/pdf/pdf-previewer.js';
import { createPdfWorkerPool, type PdfWorkerPool } from '../../src/pdf/pdf-worker-pool.js';
import { makeCostlyPdf, makePdf, pdfPageTexts } from '../../src/testing/pdf-samples.js';
import { previewFailure } from '../../src/testing/preview-failure.js';

const area = { width: 256, height: 256 };

/** Waits (up to a minute, for a loaded machine) until `condition` holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 6000; tries += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** The longest gap between ticks of a 1 ms timer while `work` runs on this thread's event loop. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  try {
    await work().catch(() => undefined);
  } finally {
    clearInterval(timer);
  }
  return longest;
}

describe('PDF worker pool', () => {
  const pools: PdfWorkerPool[] = [];
  let costly: Uint8Array;
  let ordinary: Uint8Array;

  beforeAll(async () => {
    costly = await makeCostlyPdf(100_000);
    ordinary = await makePdf(3);
  });

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
  });

  const start = (options: Parameters<typeof createPdfWorkerPool>[0]) => {
    const pool = createPdfWorkerPool(options);
    pools.push(pool);
    return { pool, previewer: createPdfPreviewer({}, pool) };
  };

  it('stops a costly render at its deadline with RENDER_TIMEOUT, replaces the worker and serves the next', async () => {
    const { pool, previewer } = start({ workers: 1, timeoutSeconds: 1 });
    await previewer.renderFirstPage(ordinary, area);
    const error = await previewFailure(previewer.renderFirstPage(costly, area));
    expect(error.code).toBe('RENDER_TIMEOUT');
    expect(error.message).toContain('within the limit of 1 s');
    expect(pool.stats()).toMatchObject({ timedOut: 1, activeRenders: 0, runningTasks: 0 });
    const pixels = await previewer.renderFirstPage(ordinary, area);
    expect(pixels).toMatchObject({ width: 256, channels: 3 });
    await until(() => pool.stats().threads === 1, 'the pool has its worker again');
  });

  it('keeps the calling thread free while workers draw', async () => {
    const { previewer } = start({ workers: 2, timeoutSeconds: 2 });
    await previewer.renderFirstPage(ordinary, area);
    const stall = await longestStall(() =>
      Promise.allSettled([previewer.renderFirstPage(costly, area), previewer.renderFirstPage(costly, area)]),
    );
    // The renders take two seconds; the loop never waits for them (generous for a loaded machine).
    expect(stall).toBeLessThan(500);
  });

  it('fails only the task whose worker dies mid-render, and the next task succeeds', async () => {
    const { pool, previewer } = start({ workers: 1, timeoutSeconds: 120 });
    const dying = previewFailure(previewer.renderFirstPage(costly, area));
    await until(() => pool.stats().runningTasks === 1, 'the worker runs the task');
    await Promise.all(pool.threads.map((thread) => thread.terminate()));
    const error = await dying;
    expect(error.code).toBe('UNREADABLE_INPUT');
    expect(error.message).toBe(
      'expected a PDF the renderer can process but the renderer stopped while working on this one',
    );
    expect(pool.stats().crashed).toBe(1);
    const preview = await previewer.preview(ordinary, { firstPage: 2, lastPage: 2 });
    expect(await pdfPageTexts(preview.data)).toEqual(['Page 2']);
  });

  it('moves transferred input to the worker, and the pixels back, without copies', async () => {
    const { previewer } = start({ workers: 1 });
    const bytes = costly.slice();
    const whole = await previewer.preview(bytes, {}, { transferInput: true });
    expect(bytes.byteLength).toBe(0);
    expect(Buffer.from(whole.data).equals(Buffer.from(costly))).toBe(true);
    const small = ordinary.slice();
    const pixels = await previewer.renderFirstPage(small, area, { transferInput: true });
    expect(small.byteLength).toBe(ordinary.byteLength);
    expect(pixels.data.byteLength).toBe(pixels.data.buffer.byteLength);
    const kept = costly.slice();
    expect((await previewer.preview(kept, {}, { transferInput: false })).data).toBe(kept);
    expect(kept.byteLength).toBe(costly.byteLength);
  });

  it('refuses work past its queue with BUSY and a retry delay', async () => {
    const { pool, previewer } = start({ workers: 1, maxQueuedTasks: 1, timeoutSeconds: 1 });
    const running = previewer.renderFirstPage(costly, area).catch(() => undefined);
    const queued = previewer.renderFirstPage(ordinary, area);
    const error = await previewFailure(previewer.renderFirstPage(ordinary, area));
    expect(error.code).toBe('BUSY');
    expect(error.details?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(() => pool.assertCapacity()).toThrow(PreviewError);
    await running;
    expect((await queued).width).toBe(256);
  });
});
