/** A mounted tmpfs of a fixed size, or why this machine cannot make one. */
export type SmallDisk =
  | { directory: string; missing?: undefined; unmount(): void }
  | { directory?: undefined; missing: string; unmount(): void };

/** Mounts a tmpfs of `size` (e.g. `2m`) on a new temporary folder; see small-disk.js. */
export function mountSmallDisk(size: string): SmallDisk;

/** Writes `file` in blocks of `blockBytes` (4096) until the disk refuses more (ENOSPC). */
export function fillDisk(file: string, blockBytes?: number): void;
