import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** An answer of the python UNO helper to one request. */
export interface HelperAnswer {
  readonly ok: boolean;
  readonly kind?: 'load' | 'export' | 'bridge' | 'request';
  readonly error?: string;
  /** Pages of the whole document, when the request asked to count them. */
  readonly pageCount?: number;
  /** False when nothing was exported because the asked pages do not exist. */
  readonly exported?: boolean;
}

/** Why the helper is gone: its exit code or signal and the end of its stderr. */
export interface HelperExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/**
 * Finds `uno/convert-server.py` of this package, from the source tree (tests) or from `dist/` (the
 * published package ships the folder in `files`).
 */
export function helperScriptPath(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 5; level += 1) {
    const candidate = join(folder, 'uno', 'convert-server.py');
    if (existsSync(candidate)) return candidate;
    folder = dirname(folder);
  }
  throw new Error('uno/convert-server.py was not found next to @collab-suite/preview-core');
}

interface Pending {
  resolve(answer: HelperAnswer): void;
}

/** One running python UNO helper attached to one soffice, speaking JSON lines over stdin/stdout. */
export class UnoHelper {
  readonly ready: Promise<void>;
  readonly exited: Promise<HelperExit>;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = '';

  constructor(pythonPath: string, connection: string, sofficeGroup: number, connectTimeoutMs: number) {
    const args = [
      helperScriptPath(),
      '--connect',
      connection,
      '--timeout',
      String(Math.ceil(connectTimeoutMs / 1000)),
      '--soffice-group',
      String(sofficeGroup),
    ];
    // Its own process group too: a signal to Node's group must not take the helper down before it has
    // stopped soffice (it watches Node and kills soffice's group when Node is gone).
    this.child = spawn(pythonPath, args, {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PYENV_VERSION: 'system' },
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    this.child.stdin?.on('error', () => {});
    this.exited = new Promise((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
        for (const pending of this.pending.values())
          pending.resolve({ ok: false, kind: 'bridge', error: 'helper exited' });
        this.pending.clear();
        resolve({ code, signal, stderr: error ? `${error.message}\n${this.stderrTail}` : this.stderrTail });
      };
      this.child.once('error', (error) => finish(null, null, error));
      this.child.once('exit', (code, signal) => finish(code, signal));
    });
    this.ready = this.listen();
  }

  /** Process id of the helper. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  private listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const lines = createInterface({ input: this.child.stdout ?? process.stdin });
      lines.on('line', (line) => {
        let message: { type?: string; id?: number; error?: string } & HelperAnswer;
        try {
          message = JSON.parse(line);
        } catch {
          return;
        }
        if (message.type === 'ready') resolve();
        else if (message.type === 'fatal')
          reject(new Error(message.error ?? 'the UNO helper failed to start'));
        else if (typeof message.id === 'number') this.answer(message.id, message);
      });
      this.exited.then((exit) => reject(new Error(describeExit('the UNO helper', exit))));
    });
  }

  private answer(id: number, answer: HelperAnswer): void {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    pending?.resolve(answer);
  }

  /** Sends one request and waits for its answer (a `bridge` answer if the helper dies first). */
  request(body: Record<string, unknown>): Promise<HelperAnswer> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve });
      this.child.stdin?.write(`${JSON.stringify({ ...body, id })}\n`);
    });
  }

  /** Kills the helper at once. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** A sentence saying how a process ended, with the end of what it wrote to stderr. */
export function describeExit(what: string, exit: HelperExit): string {
  const how = exit.signal
    ? `was killed by ${exit.signal}`
    : exit.code === null
      ? 'could not be started'
      : `exited with code ${exit.code}`;
  const tail = exit.stderr.trim().split('\n').slice(-3).join(' | ');
  return `${what} ${how}${tail ? `: ${tail}` : ''}`;
}
