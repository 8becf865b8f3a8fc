import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A mounted tmpfs of a fixed size: a disk that really fills up. */
export type SmallDisk =
  | { directory: string; missing?: undefined; unmount(): void }
  | { directory?: undefined; missing: string; unmount(): void };

/**
 * Mounts a tmpfs of `size` (`mount -t tmpfs -o size=2m`) on a new temporary folder; needs root.
 * When it cannot, `missing` says why. Call `unmount()` in `afterAll`.
 */
export function mountSmallDisk(size: string): SmallDisk {
  if (process.getuid?.() !== 0) return { missing: 'mounting a tmpfs needs root', unmount() {} };
  const directory = mkdtempSync(path.join(tmpdir(), 'collab-small-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', directory], {
    encoding: 'utf8',
  });
  if (mounted.status !== 0) {
    rmSync(directory, { recursive: true, force: true });
    const reason = mounted.stderr?.trim() || mounted.error?.message || `exit ${mounted.status}`;
    return { missing: `mount -t tmpfs failed: ${reason}`, unmount() {} };
  }
  return {
    directory,
    unmount() {
      spawnSync('umount', ['--lazy', directory]);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Writes `file` until the disk refuses more (ENOSPC): every free block is then taken. */
export function fillDisk(file: string): void {
  const descriptor = openSync(file, 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(descriptor, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(descriptor);
  }
}
