import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Options of {@link startSqliteCheckpointer}. */
export interface SqliteCheckpointerOptions {
  /** The WAL-mode database file to checkpoint. */
  filename: string;
  /** Time between two checkpoints. */
  intervalMs: number;
  /** Told about a checkpoint that failed; the next one is tried on time all the same. */
  onError(error: Error): void;
}

/** A running {@link startSqliteCheckpointer}. */
export interface SqliteCheckpointer {
  /** Runs a last checkpoint and stops the thread. */
  close(): Promise<void>;
}

// The thread's code, plain CommonJS so it runs as it is from the sources (tests) and from dist.
// It opens its own connection and copies committed WAL frames into the database file (PASSIVE: it
// never waits for, nor blocks, the writer), fsyncs included, so the writer's thread never does.
const checkpointThread = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const database = new Database(workerData.filename, { fileMustExist: true });
database.pragma('synchronous = NORMAL');
database.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  database.close();
  parentPort.close();
});
`;

/**
 * Starts a thread that checkpoints the WAL of `filename` every `intervalMs`: the file's own
 * connection then never pays for copying pages back and fsyncing, which otherwise stalls the event
 * loop for the length of a checkpoint every few thousand writes. The connection that writes must
 * not use exclusive locking mode (this thread needs its own connection).
 */
export function startSqliteCheckpointer(options: SqliteCheckpointerOptions): SqliteCheckpointer {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(checkpointThread, {
    eval: true,
    workerData: { driverPath, filename: options.filename, intervalMs: options.intervalMs },
  });
  worker.unref();
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.onError(new Error(`SQLite checkpoint failed: ${message.error}`));
  });
  worker.on('error', (error) => options.onError(error));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    close() {
      worker.postMessage('close');
      return exited;
    },
  };
}
