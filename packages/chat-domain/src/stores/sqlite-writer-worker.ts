// Entry of the SQLite writer thread (see sqlite-writer-thread.ts): opens the file as the `writer`
// connection and runs the store methods the main thread sends, one at a time, in arrival order.
import { parentPort, workerData } from 'node:worker_threads';
import { isChatError } from '../errors.js';
import type { ChatStoreWithoutRoomLock } from './in-process-room-lock.js';
import { openSqliteStoreCore } from './sqlite-store-core.js';
import type { WriterFailure, WriterReply, WriterRequest } from './sqlite-writer-protocol.js';

function failureOf(error: unknown): WriterFailure {
  if (isChatError(error)) {
    return { chatError: true, code: error.code, message: error.message, details: error.details };
  }
  const { message, code } = error as { message?: unknown; code?: unknown };
  return {
    chatError: false,
    message: typeof message === 'string' ? message : String(error),
    code: typeof code === 'string' ? code : undefined,
  };
}

const port = parentPort;
if (port === null) throw new Error('sqlite-writer-worker must run as a worker thread');
const { filename } = workerData as { filename: string };
const { store } = openSqliteStoreCore(filename, 'writer');
const methods = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;

port.on('message', async ({ id, method, args }: WriterRequest) => {
  let reply: WriterReply;
  try {
    const run = methods[method as keyof ChatStoreWithoutRoomLock];
    if (typeof run !== 'function') throw new Error(`the SQLite writer has no method ${method}`);
    reply = { id, result: await run(...args) };
  } catch (error) {
    reply = { id, failure: failureOf(error) };
  }
  port.postMessage(reply);
  if (method === 'close') port.close();
});
