// Shared by the packages' full-disk tests: plain JavaScript with a declaration file beside it, like
// event-loop-ticks.js, so each package's type check reads its types without taking it as a source.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Mounts a tmpfs of `size` (`mount -t tmpfs -o size=2m`) on a new temporary folder: a disk that
 * really fills up. Needs root; when it cannot, `missing` says why. Call `unmount()` in `afterAll`.
 *
 * @param {string} size
 * @returns {import('./small-disk.js').SmallDisk}
 */
export function mountSmallDisk(size) {
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

/**
 * Writes `file` in blocks of `blockBytes` until the disk refuses more (ENOSPC): every free block is
 * then taken.
 *
 * @param {string} file
 * @param {number} [blockBytes]
 */
export function fillDisk(file, blockBytes = 4096) {
  const descriptor = openSync(file, 'w');
  const block = Buffer.alloc(blockBytes, 1);
  try {
    for (;;) writeSync(descriptor, block);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(descriptor);
  }
}
