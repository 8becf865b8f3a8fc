import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDiskCache, type DiskCacheEntry } from './disk-cache.js';

const entry = (bytes: number, fill = 1): DiskCacheEntry => ({
  data: new Uint8Array(bytes).fill(fill),
  metadata: { format: 'jpeg', pages: 3 },
});

describe('disk cache', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'disk-cache-test-'));
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  it('answers what was stored, with its metadata, and counts hits and misses', async () => {
    const cache = createDiskCache({ directory });
    expect(await cache.get('a')).toBeUndefined();
    await cache.set('a', entry(100, 7));
    const found = await cache.get('a');
    expect(found?.metadata).toEqual({ format: 'jpeg', pages: 3 });
    expect(found?.data).toEqual(new Uint8Array(100).fill(7));
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 1, misses: 1 });
  });

  it('keeps its entries and their order across a restart', async () => {
    // memoryBytes 0: hits read the file and wait for its time to be touched (a memory hit touches it
    // in the background).
    const first = createDiskCache({ directory, maxBytes: 3_000, memoryBytes: 0 });
    await first.set('old', entry(900));
    await first.set('newer', entry(900));
    await first.set('newest', entry(900));
    // A hit makes "old" the most recently used, on disk too.
    expect(await first.get('old')).toBeDefined();
    const second = createDiskCache({ directory, maxBytes: 3_000 });
    await second.whenReady();
    expect(second.stats()).toMatchObject({ entries: 3 });
    await second.set('another', entry(900));
    expect(await second.get('newer')).toBeUndefined();
    expect(await second.get('old')).toBeDefined();
    expect(await second.get('another')).toBeDefined();
    expect((await readdir(directory)).filter((name) => name.endsWith('.entry'))).toHaveLength(3);
  });

  it('removes the least recently used files past maxBytes and never keeps an entry over maxEntryBytes', async () => {
    const cache = createDiskCache({ directory, maxBytes: 2_500, maxEntryBytes: 1_500 });
    await cache.set('one', entry(1_000));
    await cache.set('two', entry(1_000));
    await cache.get('one');
    await cache.set('three', entry(1_000));
    expect(await cache.get('two')).toBeUndefined();
    expect(await cache.get('one')).toBeDefined();
    await cache.set('huge', entry(2_000));
    expect(await cache.get('huge')).toBeUndefined();
    expect(cache.stats().bytes).toBeLessThanOrEqual(2_500);
    expect(await readdir(directory)).toHaveLength(2);
  });

  it('treats a damaged or vanished file as a miss', async () => {
    const cache = createDiskCache({ directory, memoryBytes: 0 });
    await cache.set('a', entry(10));
    await cache.set('b', entry(10));
    const [first, second] = (await readdir(directory)).sort();
    await writeFile(join(directory, first ?? ''), 'garbage that is not an entry');
    await rm(join(directory, second ?? ''));
    expect(await cache.get('a')).toBeUndefined();
    expect(await cache.get('b')).toBeUndefined();
    expect(cache.stats().entries).toBe(0);
  });

  it('shares one creation between concurrent callers and stores it', async () => {
    const cache = createDiskCache({ directory });
    let created = 0;
    const create = async () => {
      created += 1;
      return entry(10);
    };
    const answers = await Promise.all([cache.getOrCreate('k', create), cache.getOrCreate('k', create)]);
    expect(answers[0]?.data).toEqual(answers[1]?.data);
    expect(created).toBe(1);
    await cache.getOrCreate('k', create);
    expect(created).toBe(1);
  });

  it('keeps nothing with maxBytes 0, and removes temporary files left by a crash at start', async () => {
    await writeFile(join(directory, 'leftover.123.1.tmp'), 'half written');
    const cache = createDiskCache({ directory });
    await cache.whenReady();
    expect(await readdir(directory)).toEqual([]);
    const none = createDiskCache({ directory, maxBytes: 0 });
    await none.set('a', entry(10));
    expect(await none.get('a')).toBeUndefined();
  });

  it('answers small entries from memory, and forgets them with their file', async () => {
    const cache = createDiskCache({ directory, maxBytes: 2_500 });
    await cache.set('small', entry(1_000));
    await rm(join(directory, (await readdir(directory))[0] ?? ''));
    expect((await cache.get('small'))?.data.byteLength).toBe(1_000);
    await cache.set('two', entry(1_000));
    await cache.set('three', entry(1_000));
    expect(await cache.get('small')).toBeUndefined();
  });

  it('keeps no more than memoryBytes in memory: older small entries are read from disk again', async () => {
    const cache = createDiskCache({ directory, memoryBytes: 1_500 });
    await cache.set('first', entry(1_000, 1));
    await cache.set('second', entry(1_000, 2));
    // "first" left memory when "second" came; with its file gone it is a miss, "second" is not.
    const files = await readdir(directory);
    await Promise.all(files.map((name) => rm(join(directory, name))));
    expect(await cache.get('first')).toBeUndefined();
    expect((await cache.get('second'))?.data[0]).toBe(2);
  });
});
