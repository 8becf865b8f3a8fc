import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ChatError } from '../errors.js';

/** Files claimed by stores of this process, so a second store here is refused too. */
const claimedHere = new Set<string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ownerOf(ownerFile: string): number | undefined {
  try {
    const pid = Number(readFileSync(ownerFile, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

const inUse = (filename: string, by: string) =>
  new ChatError(
    'dependency_failed',
    `expected the SQLite chat database ${filename} to be free but ${by} has it open; one store of one process at a time may use it`,
  );

/**
 * Claims the SQLite file `filename` for one store of this process: its member cache is only right
 * while no other connection changes the file. The claim is `<filename>-owner`, holding this
 * process's id; a claim left by a process that is gone (or by an earlier process that had this
 * same id) is taken over. Returns the release.
 * @throws ChatError `dependency_failed` when another store of this process or a running process has it
 */
export function claimSqliteFile(filename: string): () => void {
  const path = resolve(filename);
  if (claimedHere.has(path)) throw inUse(filename, 'another store of this process');
  const ownerFile = `${path}-owner`;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(ownerFile, String(process.pid), { flag: 'wx' });
      claimedHere.add(path);
      return () => {
        claimedHere.delete(path);
        rmSync(ownerFile, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = ownerOf(ownerFile);
    if (owner !== undefined && owner !== process.pid && isRunning(owner)) {
      throw inUse(filename, `process ${owner}`);
    }
    rmSync(ownerFile, { force: true });
  }
  throw inUse(filename, 'a process starting at the same time');
}
