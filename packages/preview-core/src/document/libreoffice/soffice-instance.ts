import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PreviewError } from '../../errors.js';
import { DOCUMENT_TYPE_INFO, type DocumentType } from '../document-type.js';
import type { LibreOfficeOptions } from './libreoffice-options.js';
import { SofficeProcess } from './soffice-process.js';
import { describeExit, type HelperAnswer, type HelperExit, UnoHelper } from './uno-helper.js';

/** What one instance is doing. */
export type InstanceState = 'starting' | 'idle' | 'busy' | 'restarting' | 'failed' | 'stopped';

/** One conversion handed to an instance. */
export interface InstanceJob {
  readonly data: Uint8Array;
  readonly type: DocumentType;
  readonly locale: string;
  /** Pages to export, 1-based and inclusive; every page when undefined. */
  readonly pages?: { readonly first: number; readonly last: number } | undefined;
  /** Count the document's pages first (printed pages of a spreadsheet), and export only pages that exist. */
  readonly countPages?: boolean | undefined;
}

/** What a successful conversion produced: the PDF, and the document's page count when it was asked. */
export interface InstanceOutput {
  /** The exported pages; empty when `countPages` found none in the asked range. */
  readonly pdf: Uint8Array;
  readonly pageCount?: number | undefined;
}

/** Outcome of a conversion: the PDF, or an error and whether the instance must be restarted. */
export type InstanceResult =
  | { readonly ok: true; readonly output: InstanceOutput }
  | { readonly ok: false; readonly error: PreviewError; readonly restart: boolean };

const RETRY_AFTER = { retryAfterSeconds: 2 };

/**
 * How LibreOffice words a store that failed for want of space: `... failed: 0x909(Error Area:Io
 * Class:Space Code:9)` (its ERRCODE_IO_OUTOFSPACE).
 */
const outOfSpace = /\bClass:Space\b/;
/**
 * After LibreOffice says it could not open or convert a document, how long to wait for news that
 * the instance died, ms: a killed soffice makes the UNO helper report a failed load or export a
 * moment before its exit is seen, and that failure is the instance's, not the document's.
 */
const deathAfterFailureMs = 300;

/**
 * Why the document could not be written to the instance's job folder: a full disk or quota
 * (`ENOSPC`, `EDQUOT`) is `STORAGE_FULL`, anything else `CONVERTER_UNAVAILABLE`; neither is the
 * document's fault. The folder's path stays in `cause`, for logs only.
 */
function jobFileError(error: unknown): PreviewError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new PreviewError(
      'STORAGE_FULL',
      "the converter's temporary disk is full: the document could not be handed to LibreOffice",
      { cause: error },
    );
  }
  return new PreviewError('CONVERTER_UNAVAILABLE', 'the document could not be handed to LibreOffice', {
    details: RETRY_AFTER,
    cause: error,
  });
}

function timeout<T>(milliseconds: number, value: T): { promise: Promise<T>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(value), milliseconds);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * One warm LibreOffice: a soffice process group with its own profile folder and UNO pipe, driven by
 * one python UNO helper. The pool decides when to start, restart and stop it.
 */
export class SofficeInstance {
  state: InstanceState = 'stopped';
  conversions = 0;
  conversionsSinceStart = 0;
  restarts = 0;
  lastError: string | undefined;
  private soffice: SofficeProcess | undefined;
  private helper: UnoHelper | undefined;
  private jobNumber = 0;
  private abandoned = false;
  private readonly profileDir: string;
  private readonly jobsDir: string;

  constructor(
    readonly id: number,
    private readonly options: LibreOfficeOptions,
    workDir: string,
  ) {
    this.profileDir = join(workDir, `profile-${id}`);
    this.jobsDir = join(workDir, `jobs-${id}`);
  }

  /** Process group id of the running soffice. */
  get pid(): number | undefined {
    return this.state === 'stopped' || this.state === 'failed' ? undefined : this.soffice?.pid;
  }

  /** Starts soffice and its helper and waits until the helper is connected. */
  async start(freshProfile: boolean, state: 'starting' | 'restarting'): Promise<void> {
    this.state = state;
    this.conversionsSinceStart = 0;
    if (freshProfile) await rm(this.profileDir, { recursive: true, force: true });
    await rm(join(this.profileDir, '.lock'), { force: true });
    await mkdir(this.jobsDir, { recursive: true });
    if (this.abandoned) throw new Error('the converter was closed');
    const soffice = new SofficeProcess(this.options.sofficePath, this.profileDir);
    this.soffice = soffice;
    const sofficeExit = soffice.exited.then((exit) =>
      describeExit(`soffice (${this.options.sofficePath})`, exit),
    );
    if (soffice.pid === undefined) throw new Error(await sofficeExit);
    const helper = new UnoHelper(
      this.options.pythonPath,
      soffice.connection,
      soffice.pid,
      this.options.startTimeoutMs,
    );
    this.helper = helper;
    const limit = timeout(this.options.startTimeoutMs, 'timeout' as const);
    try {
      const outcome = await Promise.race([
        helper.ready.then(() => 'ready' as const),
        sofficeExit,
        limit.promise,
      ]);
      if (outcome === 'timeout')
        throw new Error(`soffice did not accept UNO connections within ${this.options.startTimeoutMs} ms`);
      if (outcome !== 'ready') throw new Error(outcome);
    } catch (error) {
      this.kill();
      throw error;
    } finally {
      limit.cancel();
    }
    this.state = 'idle';
  }

  /** Resolves when either process of this instance ends, with a sentence saying how. */
  whenGone(): Promise<string> {
    const soffice = this.soffice;
    const helper = this.helper;
    if (!soffice || !helper) return Promise.resolve('not started');
    return Promise.race([
      soffice.exited.then((exit) => describeExit('soffice', exit)),
      helper.exited.then((exit: HelperExit) => describeExit('the UNO helper', exit)),
    ]);
  }

  /** Kills both processes for good: a start still preparing will not spawn anything. */
  abandon(): void {
    this.abandoned = true;
    this.kill();
    this.state = 'stopped';
  }

  /** Kills both processes at once. */
  kill(): void {
    this.helper?.kill();
    this.soffice?.kill();
  }

  /** Converts one document; never throws, the result says whether the instance must restart. */
  async convert(job: InstanceJob): Promise<InstanceResult> {
    this.state = 'busy';
    const number = ++this.jobNumber;
    const input = join(this.jobsDir, `job-${number}.${job.type}`);
    const output = join(this.jobsDir, `job-${number}.pdf`);
    try {
      try {
        await writeFile(input, job.data);
      } catch (error) {
        return { ok: false, error: jobFileError(error), restart: false };
      }
      return await this.run(job, input, output);
    } finally {
      await Promise.all([rm(input, { force: true }), rm(output, { force: true })]);
      this.conversions += 1;
      this.conversionsSinceStart += 1;
    }
  }

  private async run(job: InstanceJob, input: string, output: string): Promise<InstanceResult> {
    const helper = this.helper;
    if (!helper) return this.crashed('the instance is not running');
    const info = DOCUMENT_TYPE_INFO[job.type];
    const limit = timeout(this.options.conversionTimeoutMs, { ok: false, kind: 'timeout' } as const);
    const answer = await Promise.race([
      helper.request({
        op: 'convert',
        input,
        output,
        inputFilter: info.importFilter,
        exportFilter: info.pdfExportFilter,
        locale: job.locale,
        pageRange: job.pages ? `${job.pages.first}-${job.pages.last}` : null,
        firstPage: job.pages?.first ?? null,
        lastPage: job.pages?.last ?? null,
        countPages: job.countPages === true,
      }),
      this.whenGone().then((reason) => ({ ok: false, kind: 'gone', error: reason }) as const),
      limit.promise,
    ]);
    limit.cancel();
    if (answer.ok) return this.readOutput(output, answer);
    if (answer.kind === 'timeout') {
      this.kill();
      const seconds = this.options.conversionTimeoutMs / 1000;
      const error = new PreviewError(
        'CONVERSION_TIMEOUT',
        `the conversion took longer than ${seconds} s and was stopped`,
        {
          details: { ...RETRY_AFTER, timeoutMs: this.options.conversionTimeoutMs },
        },
      );
      return { ok: false, error, restart: true };
    }
    if ((answer.kind === 'load' || answer.kind === 'export') && outOfSpace.test(answer.error ?? '')) {
      const error = new PreviewError(
        'STORAGE_FULL',
        "the converter's temporary disk is full: LibreOffice could not write the PDF",
        { cause: new Error(answer.error) },
      );
      return { ok: false, error, restart: false };
    }
    if (answer.kind === 'load' || answer.kind === 'export') {
      const gone = await this.goneWithin(deathAfterFailureMs);
      if (gone !== undefined) return this.crashed(gone);
      const what = answer.kind === 'load' ? 'open' : 'convert';
      const error = new PreviewError(
        'CONVERSION_FAILED',
        `LibreOffice could not ${what} the ${job.type} document (damaged, password-protected or not really a ${job.type})`,
        // LibreOffice's own words can name files of this host: logs only, never the answer.
        { cause: new Error(answer.error ?? 'no reason given') },
      );
      return { ok: false, error, restart: false };
    }
    return this.crashed(answer.error ?? 'the UNO bridge was lost');
  }

  /** Why the instance stopped, if it does within `milliseconds`; otherwise undefined. */
  private async goneWithin(milliseconds: number): Promise<string | undefined> {
    const limit = timeout(milliseconds, undefined);
    const reason = await Promise.race([this.whenGone(), limit.promise]);
    limit.cancel();
    return reason;
  }

  private crashed(reason: string): InstanceResult {
    this.kill();
    this.lastError = reason;
    const error = new PreviewError(
      'CONVERTER_CRASHED',
      'the LibreOffice instance stopped during the conversion; it is being restarted, try again',
      { details: RETRY_AFTER, cause: new Error(reason) },
    );
    return { ok: false, error, restart: true };
  }

  private async readOutput(output: string, answer: HelperAnswer): Promise<InstanceResult> {
    const pageCount = typeof answer.pageCount === 'number' ? answer.pageCount : undefined;
    if (answer.exported === false) return { ok: true, output: { pdf: new Uint8Array(0), pageCount } };
    const size = (await stat(output).catch(() => undefined))?.size;
    if (size === undefined) {
      const error = new PreviewError('CONVERSION_FAILED', 'LibreOffice reported success but wrote no PDF');
      return { ok: false, error, restart: false };
    }
    if (size > this.options.maxOutputBytes) {
      const error = new PreviewError(
        'CONVERSION_FAILED',
        `the converted PDF has ${size} bytes, more than the limit of ${this.options.maxOutputBytes}`,
        { details: { bytes: size, maxOutputBytes: this.options.maxOutputBytes } },
      );
      return { ok: false, error, restart: false };
    }
    return { ok: true, output: { pdf: new Uint8Array(await readFile(output)), pageCount } };
  }
}
