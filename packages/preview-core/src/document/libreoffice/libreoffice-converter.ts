import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PreviewError } from '../../errors.js';
import { parseOptions } from '../../options/parse-options.js';
import type { ConversionRequest, ConverterStatus, DocumentConverter } from '../document-converter.js';
import { normaliseLocale } from '../locale.js';
import { ConversionQueue } from './conversion-queue.js';
import {
  type LibreOfficeOptions,
  type LibreOfficeOptionsInput,
  libreOfficeOptionsSchema,
} from './libreoffice-options.js';
import { type InstanceJob, type InstanceOutput, SofficeInstance } from './soffice-instance.js';

/** The local LibreOffice pool as a {@link DocumentConverter}, plus start-up and test hooks. */
export interface LibreOfficeConverter extends DocumentConverter {
  readonly options: LibreOfficeOptions;
  /** Resolves once every instance has finished its first start attempt, successful or not. */
  whenStarted(): Promise<void>;
}

const MAX_START_RETRY_DELAY_MS = 30_000;

/** Instances of every open pool, killed if the process exits without closing them. */
const liveInstances = new Set<SofficeInstance>();
let exitHandlerInstalled = false;

function killOnExit(instances: readonly SofficeInstance[]): void {
  for (const instance of instances) liveInstances.add(instance);
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.once('exit', () => {
    for (const instance of liveInstances) instance.kill();
  });
}

/**
 * Starts a pool of warm LibreOffice instances (one per core by default), each with its own profile
 * and UNO pipe, driven by a long-lived python3-uno helper. A conversion that runs past the timeout
 * kills and restarts its instance; a crashed instance restarts; every instance restarts after
 * `restartAfterConversions`; waiting conversions are bounded. Instances start in the background:
 * conversions asked meanwhile wait in the queue.
 * @throws {PreviewError} `INVALID_OPTION` when an option is malformed.
 */
export function createLibreOfficeConverter(input: LibreOfficeOptionsInput = {}): LibreOfficeConverter {
  const options = parseOptions(libreOfficeOptionsSchema, input);
  const ownsWorkDir = options.workDir === undefined;
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'collab-preview-lo-'));
  const instances = Array.from(
    { length: options.instances },
    (_, id) => new SofficeInstance(id, options, workDir),
  );
  const generations = new Map<SofficeInstance, number>();
  const startFailures = new Map<SofficeInstance, number>();
  const retryTimers = new Set<NodeJS.Timeout>();
  let closed = false;
  let lastStartError: string | undefined;
  let failures = 0;
  let averageMs = 500;

  const usable = () =>
    !closed && instances.some((instance) => instance.state !== 'failed' && instance.state !== 'stopped');
  const retryAfterSeconds = (waiting: number) =>
    Math.max(1, Math.ceil((averageMs * (waiting + 1)) / options.instances / 1000));

  const unavailable = () =>
    new PreviewError(
      'CONVERTER_UNAVAILABLE',
      closed
        ? 'the LibreOffice converter is closed'
        : `no LibreOffice instance is running (${lastStartError ?? 'starting'}); document previews are offline`,
      { details: { retryAfterSeconds: Math.ceil(options.startRetryDelayMs / 1000) || 1 } },
    );

  const queue = new ConversionQueue(options, retryAfterSeconds);

  const starting = new Set<Promise<void>>();
  killOnExit(instances);

  const watch = (instance: SofficeInstance) => {
    const generation = (generations.get(instance) ?? 0) + 1;
    generations.set(instance, generation);
    instance.whenGone().then((reason) => {
      if (closed || generations.get(instance) !== generation || instance.state !== 'idle') return;
      instance.lastError = `${reason} while idle`;
      void restart(instance);
    });
  };

  const scheduleRetry = (instance: SofficeInstance) => {
    const count = (startFailures.get(instance) ?? 0) + 1;
    startFailures.set(instance, count);
    const delay = Math.min(options.startRetryDelayMs * 2 ** (count - 1), MAX_START_RETRY_DELAY_MS);
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      if (!closed) void start(instance, true, 'restarting');
    }, delay);
    timer.unref();
    retryTimers.add(timer);
  };

  function start(
    instance: SofficeInstance,
    freshProfile: boolean,
    state: 'starting' | 'restarting',
  ): Promise<void> {
    const attempt = startOnce(instance, freshProfile, state).finally(() => starting.delete(attempt));
    starting.add(attempt);
    return attempt;
  }

  async function startOnce(
    instance: SofficeInstance,
    freshProfile: boolean,
    state: 'starting' | 'restarting',
  ) {
    try {
      await instance.start(freshProfile, state);
      if (closed) {
        instance.kill();
        instance.state = 'stopped';
        return;
      }
      startFailures.delete(instance);
      watch(instance);
      dispatch();
    } catch (error) {
      if (closed) return;
      instance.state = 'failed';
      lastStartError = error instanceof Error ? error.message : String(error);
      instance.lastError = lastStartError;
      if (!usable()) queue.rejectAll(unavailable());
      if (!closed) scheduleRetry(instance);
    }
  }

  function restart(instance: SofficeInstance): Promise<void> {
    instance.kill();
    instance.restarts += 1;
    return start(instance, false, 'restarting');
  }

  function run(instance: SofficeInstance, job: InstanceJob): Promise<InstanceOutput> {
    const startedAt = performance.now();
    return instance.convert(job).then((result) => {
      averageMs = 0.8 * averageMs + 0.2 * (performance.now() - startedAt);
      const recycle = instance.conversionsSinceStart >= options.restartAfterConversions;
      if (closed) instance.kill();
      else if (!result.ok && result.restart) void restart(instance);
      else if (recycle) void restart(instance);
      else {
        instance.state = 'idle';
        dispatch();
      }
      if (result.ok) return result.output;
      failures += 1;
      throw result.error;
    });
  }

  function dispatch() {
    for (const instance of instances) {
      if (instance.state !== 'idle') continue;
      const next = queue.take();
      if (!next) return;
      run(instance, next.job).then(next.resolve, next.reject);
    }
  }

  async function submit(request: ConversionRequest, countPages: boolean): Promise<InstanceOutput> {
    request.signal?.throwIfAborted();
    const job: InstanceJob = {
      data: request.data,
      type: request.type,
      locale: normaliseLocale(request.locale, options.defaultLocale),
      pages: request.pages,
      countPages,
    };
    if (!usable()) throw unavailable();
    const idle = instances.find((instance) => instance.state === 'idle');
    if (idle && queue.size === 0) return run(idle, job);
    return queue.add(job, request.signal);
  }

  const started = Promise.all(instances.map((instance) => start(instance, true, 'starting'))).then(
    () => undefined,
  );

  return {
    options,
    exportsPageRanges: true,
    whenStarted: () => started,
    async convert(request: ConversionRequest) {
      return (await submit(request, false)).pdf;
    },
    async convertPages(request) {
      const { pdf, pageCount } = await submit(request, true);
      return pageCount === undefined ? undefined : { pdf, pageCount };
    },
    status(): ConverterStatus {
      const available = usable();
      return {
        name: 'libreoffice',
        available,
        reason: available ? undefined : closed ? 'closed' : lastStartError,
        instances: instances.length,
        busy: instances.filter((instance) => instance.state === 'busy').length,
        queued: queue.size,
        restarts: instances.reduce((sum, instance) => sum + instance.restarts, 0),
        conversions: instances.reduce((sum, instance) => sum + instance.conversions, 0),
        failures,
        pool: instances.map((instance) => ({
          id: instance.id,
          state: instance.state,
          pid: instance.pid,
          conversions: instance.conversions,
          restarts: instance.restarts,
        })),
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of retryTimers) clearTimeout(timer);
      queue.rejectAll(unavailable());
      const gone = instances.map((instance) => instance.whenGone());
      for (const instance of instances) instance.abandon();
      const settled = Promise.all([...gone, Promise.allSettled([...starting])]);
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
      for (const instance of instances) liveInstances.delete(instance);
      if (ownsWorkDir) await rm(workDir, { recursive: true, force: true });
    },
  };
}
