import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { HelperExit } from './uno-helper.js';

/** One soffice process group listening on its own UNO pipe, with its own profile. */
export class SofficeProcess {
  /** UNO connection string of the pipe this soffice accepts on. */
  readonly connection: string;
  readonly exited: Promise<HelperExit>;
  private readonly child: ChildProcess;
  private stderrTail = '';

  constructor(sofficePath: string, profileDir: string) {
    const pipeName = `collab-preview-${process.pid}-${randomBytes(6).toString('hex')}`;
    this.connection = `pipe,name=${pipeName}`;
    const args = [
      `-env:UserInstallation=${pathToFileURL(profileDir).href}`,
      '--headless',
      '--invisible',
      '--nologo',
      '--norestore',
      '--nodefault',
      '--nolockcheck',
      `--accept=${this.connection};urp;StarOffice.ComponentContext`,
    ];
    // Its own process group: soffice is a script that starts oosplash, which starts soffice.bin;
    // killing the group is the only way to stop all three.
    this.child = spawn(sofficePath, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => resolve({ code: null, signal: null, stderr: error.message }));
      this.child.once('exit', (code, signal) => resolve({ code, signal, stderr: this.stderrTail }));
    });
  }

  /** Process id of the group leader (the process group id), once spawned. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Kills the whole process group at once; safe to call repeatedly. */
  kill(): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
