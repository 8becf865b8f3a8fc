import { z } from 'zod';

const count = (minimum: number) => z.number().int().min(minimum);

/**
 * Limits of the preview service. Every one has a default and a reason; the server exposes each as an
 * environment variable.
 */
export const previewLimitsSchema = z.strictObject({
  /**
   * Largest input in bytes (uploads and stored files). A 50 MP camera JPEG is 15-30 MB; 50 MiB keeps
   * those while bounding the memory one request can hold.
   * @default 52428800
   */
  maxInputBytes: count(1).default(50 * 1024 * 1024),
  /**
   * Largest input in pixels (width x height, times frames for animated output), checked from the
   * header before any decoding. 100 MP admits 50 MP photos and refuses decompression bombs.
   * @default 100000000
   */
  maxInputPixels: count(1).default(100_000_000),
  /**
   * Largest side of an output image in pixels. 10000 covers any screen or print preview while keeping a
   * canvas under 400 MB of RGBA.
   * @default 10000
   */
  maxOutputSide: count(1).default(10_000),
  /**
   * Renders running at once. 4 matches libuv's default thread pool, which runs sharp's work; more only
   * queues inside libuv while holding more memory.
   * @default 4
   */
  maxConcurrentRenders: count(1).default(4),
  /**
   * Renders waiting for a slot. Past it a request fails at once with BUSY instead of waiting for
   * minutes; 32 is eight rounds of the default concurrency.
   * @default 32
   */
  maxQueuedRenders: count(0).default(32),
  /**
   * Longest one image render (decode, resize, encode) may run, in whole seconds, before libvips stops
   * it (`RENDER_TIMEOUT`) and its slot is freed. Waiting for a slot does not count. A 100 MP photo
   * renders in 1 to 3 s on two cores; 20 s leaves room for a loaded machine while stopping inputs that
   * cost minutes within the pixel limit, such as SVG filters or huge GIF quantisation.
   * @default 20
   */
  renderTimeoutSeconds: count(1).max(3600).default(20),
});

/** Limits as given by a caller; every field optional. */
export type PreviewLimitsInput = z.input<typeof previewLimitsSchema>;

/** Limits with every default applied. */
export type PreviewLimits = z.output<typeof previewLimitsSchema>;
