import { request } from 'node:http';
import type { ClusterNode } from '../cluster/cluster-nodes.js';

/** What the server answered to one raw upload. */
export interface RawAnswer {
  status: number;
  body: string;
}

/**
 * Sends `chunks` as a chunked body (no `Content-Length`) to `url` and resolves with the answer.
 * The server may answer and close before the body ends: writes after that are ignored.
 */
export function chunkedUpload(
  url: string,
  headers: Record<string, string>,
  chunks: Buffer[],
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: 'POST',
      headers: { ...headers, 'transfer-encoding': 'chunked' },
    });
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      let body = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (text: string) => {
        body += text;
      });
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
      incoming.on('error', reject);
    });
    const writeNext = (index: number) => {
      if (outgoing.destroyed) return;
      const chunk = chunks[index];
      if (chunk === undefined) {
        outgoing.end();
        return;
      }
      outgoing.write(chunk, () => setImmediate(() => writeNext(index + 1)));
    };
    writeNext(0);
  });
}

/** Resolves with the exit code of `node` once it exits, or rejects after `timeoutMs`. */
export function exitOf(node: ClusterNode, timeoutMs: number): Promise<number | null> {
  const child = node.process;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${node.name} did not exit within ${timeoutMs} ms:\n${node.output()}`)),
      timeoutMs,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/**
 * Resolves once `node` has printed a line matching `pattern`; rejects when it exits first or after
 * `timeoutMs` (a minute: a loaded machine is slow), with its output.
 */
export async function untilOutput(node: ClusterNode, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(node.output())) {
    if (node.process.exitCode !== null || node.process.signalCode !== null) {
      throw new Error(`${node.name} exited before printing ${pattern}:\n${node.output()}`);
    }
    if (Date.now() > deadline) throw new Error(`${node.name} did not print ${pattern}:\n${node.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
