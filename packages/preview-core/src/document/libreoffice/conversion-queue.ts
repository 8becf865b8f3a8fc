import { PreviewError } from '../../errors.js';
import type { InstanceJob, InstanceOutput } from './soffice-instance.js';

interface Waiting {
  readonly job: InstanceJob;
  resolve(output: InstanceOutput): void;
  reject(error: unknown): void;
}

/** Conversions waiting for a free instance: bounded in length and in waiting time. */
export class ConversionQueue {
  private readonly waiting: Waiting[] = [];

  constructor(
    private readonly limits: { readonly maxQueued: number; readonly queueTimeoutMs: number },
    private readonly retryAfterSeconds: (waiting: number) => number,
  ) {}

  get size(): number {
    return this.waiting.length;
  }

  /**
   * Waits for an instance to take `job`.
   * @throws {PreviewError} `BUSY` at once when the queue is full, or after `queueTimeoutMs` of waiting.
   */
  add(job: InstanceJob, signal: AbortSignal | undefined): Promise<InstanceOutput> {
    if (this.waiting.length >= this.limits.maxQueued) {
      const seconds = this.retryAfterSeconds(this.waiting.length);
      return Promise.reject(
        new PreviewError(
          'BUSY',
          `every LibreOffice instance is converting and all ${this.limits.maxQueued} queue places are taken; retry in ${seconds} s`,
          { details: { retryAfterSeconds: seconds, queued: this.waiting.length } },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.waiting.indexOf(entry);
        if (index >= 0) this.waiting.splice(index, 1);
      };
      const entry: Waiting = {
        job,
        resolve: (output) => {
          leave();
          resolve(output);
        },
        reject: (error) => {
          leave();
          reject(error);
        },
      };
      const onAbort = () => entry.reject(signal?.reason);
      const timer = setTimeout(() => {
        const seconds = this.retryAfterSeconds(this.waiting.length);
        entry.reject(
          new PreviewError(
            'BUSY',
            `no LibreOffice instance became free within ${this.limits.queueTimeoutMs} ms; retry in ${seconds} s`,
            { details: { retryAfterSeconds: seconds } },
          ),
        );
      }, this.limits.queueTimeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Removes the oldest waiting conversion, handing it to an instance. */
  take(): Waiting | undefined {
    const next = this.waiting[0];
    if (!next) return undefined;
    this.waiting.shift();
    return next;
  }

  /** Fails every waiting conversion with `error`. */
  rejectAll(error: PreviewError): void {
    for (const entry of [...this.waiting]) entry.reject(error);
  }
}
