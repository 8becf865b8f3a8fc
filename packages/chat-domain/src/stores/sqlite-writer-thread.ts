import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ChatError } from '../errors.js';
import type { WriterFailure, WriterReply, WriterRequest } from './sqlite-writer-protocol.js';

/** The main thread's end of a SQLite writer thread. */
export interface SqliteWriterThread {
  /** Runs the store method `method` on the writer thread; settles once its transaction is committed or failed. */
  call(method: string, args: unknown[]): Promise<unknown>;
  /** Closes the writer's connection after the calls already sent, then ends the thread. */
  close(): Promise<void>;
}

function errorOf(failure: WriterFailure): Error {
  if (failure.chatError) return new ChatError(failure.code, failure.message, { details: failure.details });
  const error = Object.assign(new Error(failure.message), { code: failure.code });
  // The transaction was rolled back: the database's disk, not the caller, is at fault.
  if (failure.code === 'SQLITE_FULL') {
    return new ChatError('storage_full', "the chat database's disk is full: nothing was changed", {
      cause: error,
    });
  }
  return error;
}

// Run from TypeScript sources (the tests), the worker entry is a .ts file: load it through tsx.
const typeScriptEntryLoader = `
const { workerData } = require('node:worker_threads');
import(workerData.tsxApi).then(({ tsImport }) => tsImport(workerData.entry, workerData.entry));
`;

function spawnWriter(filename: string): Worker {
  const compiled = !import.meta.url.endsWith('.ts');
  if (compiled) {
    // The build puts the worker entry beside the module that starts it (dist/).
    return new Worker(new URL('./sqlite-writer-worker.js', import.meta.url), { workerData: { filename } });
  }
  // tsx's ESM API (its `import` export of `tsx/esm/api`); require.resolve would pick the CommonJS one.
  const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
  const tsxApi = pathToFileURL(join(dirname(tsxPackage), 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./sqlite-writer-worker.ts', import.meta.url).href;
  return new Worker(typeScriptEntryLoader, { eval: true, workerData: { filename, tsxApi, entry } });
}

/**
 * Starts a worker thread that opens `filename` as the store's `writer` connection. Calls run there
 * one at a time in the order they were made, so a write transaction (and the checkpoints that
 * follow some of them, with their fsync) never holds up the main thread's event loop. The thread
 * keeps the process alive only while a call is pending. If it dies, every pending and later call
 * fails with the reason.
 */
export function startSqliteWriterThread(filename: string): SqliteWriterThread {
  const worker = spawnWriter(filename);
  worker.unref();
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 0;
  let stopped: Error | undefined;

  const settle = (id: number) => {
    const waiting = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    return waiting;
  };
  worker.on('message', (reply: WriterReply) => {
    const waiting = settle(reply.id);
    if ('failure' in reply) waiting?.reject(errorOf(reply.failure));
    else waiting?.resolve(reply.result);
  });
  const stop = (reason: Error) => {
    stopped ??= reason;
    for (const [id, waiting] of pending) {
      settle(id);
      waiting.reject(stopped);
    }
  };
  worker.on('error', (error) => stop(new Error(`the SQLite writer thread failed: ${error.message}`)));
  const exited = new Promise<void>((resolve) => {
    worker.on('exit', (code) => {
      stop(new Error(`the SQLite writer thread stopped (exit code ${code})`));
      resolve();
    });
  });

  const call = (method: string, args: unknown[]): Promise<unknown> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      const request: WriterRequest = { id, method, args };
      try {
        worker.postMessage(request);
      } catch (error) {
        // Arguments that cannot be copied to the thread (a function, say): nothing was sent.
        settle(id);
        reject(error);
      }
    });
  };
  return {
    call,
    async close() {
      if (!stopped) await call('close', []).catch(() => {});
      await worker.terminate();
      await exited;
    },
  };
}
